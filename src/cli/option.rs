//! One declaration per option: [`options!`] takes a struct of clap fields, each
//! with its doc comment (the help), its `#[arg]` (the name, the value's parser and
//! unit, the default) and, after `=>`, what it applies to and the values it takes
//! ([`Opt`], with its [`Range`]); it defines the clap struct and an `option(id)`
//! function that answers both. The rules on options (config/rules.rs), the range
//! checks and their messages (config/ranges.rs) and the lists of the options that
//! tune each test ([`crate::config::tuning`]) are read from there, so that adding an
//! option to a test touches its declaration and the code that uses its value.
//! ripgrep's `Flag` (one type per flag: its name, help and what it sets) is the
//! model.

/// What an option needs beside it on the probing command line to mean something,
/// and how diskinfo's -p and -s take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opt {
    /// What it applies to.
    pub applies: Applies,
    /// How -p and -s take it.
    pub beside_id: BesideId,
    /// The values it takes, in its unit, beyond what its parser reads.
    pub range: Range,
}

/// The values an option takes, in the unit its value is written in: checked once
/// by config (config/ranges.rs), whose message names the option and this range.
/// The bounds of a checked type ([`crate::results::settings`]) are read from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// Whatever its parser reads (or a check of its own, as --smr-budget's).
    Any,
    /// A whole number from `lo` to `hi`.
    Count {
        /// The lowest allowed.
        lo: i64,
        /// The highest allowed.
        hi: i64,
    },
    /// A time in seconds from `min_ms` milliseconds to an hour.
    Seconds {
        /// The shortest allowed, in milliseconds.
        min_ms: u64,
    },
    /// A time in milliseconds above 0, up to `max`.
    Millis {
        /// The longest allowed.
        max: u64,
    },
    /// A size in bytes above 0.
    Bytes,
    /// A size or an offset in bytes, a whole number of 512-byte sectors; a size
    /// (`max` given) from one sector to `max`.
    Sectors {
        /// The largest size allowed; None for an offset (any whole sector).
        max: Option<u64>,
    },
    /// A percentage above 0 and below 1000 ([`crate::results::settings::Deviation`]).
    Percent,
    /// The block size of a badblocks list ([`crate::stamps::badblocks::check_block_size`]).
    BadBlocksSize,
}

impl Range {
    /// A whole number from `lo` to `hi`.
    pub const fn count(lo: i64, hi: i64) -> Range {
        Range::Count { lo, hi }
    }

    /// A time in seconds from `min_ms` milliseconds to an hour.
    pub const fn seconds_from_ms(min_ms: u64) -> Range {
        Range::Seconds { min_ms }
    }
}

/// What an option applies to: tests and options named by their clap ids (a test's
/// id is the id of the option that selects it, results/test_kind.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    /// Means something alone: the disks, the output form, SMART's reading, the
    /// history, the record's fields.
    Alone,
    /// Selects the test whose id is the option's; needs -w when the test always
    /// writes.
    Test,
    /// Tunes these tests; `burn_in`: --burn-in passes it on to its steps too.
    Tunes {
        /// The tests, by id.
        tests: &'static [&'static str],
        /// Whether --burn-in takes it.
        burn_in: bool,
    },
    /// Needs one of these options, and -w too when `write`.
    With {
        /// At least one of these.
        any: &'static [&'static str],
        /// And -w.
        write: bool,
    },
    /// Needs a test (any, --burn-in among them) or a SMART reading.
    AnyRun,
    /// Needs a test that writes (or --burn-in) or one of `or`, and -w too when
    /// `write` (which is -w's own rule without it).
    Writing {
        /// Options that take it besides the writing tests.
        or: &'static [&'static str],
        /// And -w.
        write: bool,
    },
    /// Needs -w and a test that restores what it overwrites (--preserve).
    Restoring,
    /// Needs a test whose results --plot draws.
    Plotted,
}

/// How diskinfo's -p and -s, which print one field, take an option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BesideId {
    /// Refused, naming it ("cannot be used with -p").
    Refused,
    /// Accepted, as diskinfo does.
    Accepted,
    /// Refused with diskinfo's own message: the options that set its `opt_v`.
    Diskinfo,
}

impl Opt {
    /// An option that means something alone.
    pub const fn alone() -> Opt {
        Opt::new(Applies::Alone)
    }

    /// The option that selects the test with its id.
    pub const fn test() -> Opt {
        Opt::new(Applies::Test)
    }

    /// An option that tunes `tests`.
    pub const fn tunes(tests: &'static [&'static str]) -> Opt {
        Opt::new(Applies::Tunes {
            tests,
            burn_in: false,
        })
    }

    /// An option that needs one of `any`.
    pub const fn with(any: &'static [&'static str]) -> Opt {
        Opt::new(Applies::With { any, write: false })
    }

    /// An option that needs a test that writes, or one of `or`.
    pub const fn writing(or: &'static [&'static str]) -> Opt {
        Opt::new(Applies::Writing { or, write: false })
    }

    /// An option that needs a test, any, or a SMART reading.
    pub const fn any_run() -> Opt {
        Opt::new(Applies::AnyRun)
    }

    /// An option with what it applies to, refused beside -p and -s.
    pub const fn new(applies: Applies) -> Opt {
        Opt {
            applies,
            beside_id: BesideId::Refused,
            range: Range::Any,
        }
    }

    /// The same, taking only the values of `range`.
    pub const fn range(self, range: Range) -> Opt {
        Opt { range, ..self }
    }

    /// The same, taken by --burn-in as well (a tuning option).
    pub const fn and_burn_in(self) -> Opt {
        match self.applies {
            Applies::Tunes { tests, .. } => Opt {
                applies: Applies::Tunes {
                    tests,
                    burn_in: true,
                },
                ..self
            },
            _ => panic!("only a tuning option is passed on by --burn-in"),
        }
    }

    /// The same, needing -w as well.
    pub const fn with_w(self) -> Opt {
        match self.applies {
            Applies::With { any, .. } => Opt {
                applies: Applies::With { any, write: true },
                ..self
            },
            Applies::Writing { or, .. } => Opt {
                applies: Applies::Writing { or, write: true },
                ..self
            },
            _ => panic!("only With and Writing take -w"),
        }
    }

    /// The same, accepted beside -p and -s.
    pub const fn beside_id(self) -> Opt {
        Opt {
            beside_id: BesideId::Accepted,
            ..self
        }
    }

    /// The same, one of diskinfo's own options that -p and -s refuse.
    pub const fn diskinfo(self) -> Opt {
        Opt {
            beside_id: BesideId::Diskinfo,
            ..self
        }
    }
}

/// A field's declaration: an option, or a flattened group of them.
#[derive(Debug, Clone, Copy)]
pub enum Decl {
    /// The field is an option.
    One(Opt),
    /// The field is a group of options (`#[command(flatten)]`): its struct's
    /// `declared`.
    Group(fn() -> Vec<(&'static str, Opt)>),
}

impl From<Opt> for Decl {
    fn from(o: Opt) -> Decl {
        Decl::One(o)
    }
}

/// Define a clap struct whose every field is declared once: its doc comment and
/// attributes as clap's derive reads them, then `=> ` an [`Opt`] (or a
/// [`Decl::Group`] for a flattened group). Beside the struct it defines
/// `declared()`, every option's clap id (its field's name) with its [`Opt`], a
/// group's in its place, and `option(id)`, one of them.
macro_rules! options {
    (
        $(#[$sm:meta])*
        pub struct $name:ident {
            $(
                $(#[$fm:meta])*
                pub $field:ident : $ty:ty => $decl:expr
            ),* $(,)?
        }
    ) => {
        $(#[$sm])*
        pub struct $name {
            $(
                $(#[$fm])*
                pub $field: $ty,
            )*
        }

        impl $name {
            /// Every option declared here, a flattened group's in its place: its
            /// clap id and what it applies to.
            pub fn declared() -> Vec<(&'static str, $crate::cli::Opt)> {
                let mut all = Vec::new();
                $(
                    // Built at compile time: a declaration that cannot be (an
                    // `Opt` method on the wrong kind) fails the build.
                    match $crate::cli::Decl::from(const { $decl }) {
                        $crate::cli::Decl::One(o) => all.push((stringify!($field), o)),
                        $crate::cli::Decl::Group(g) => all.extend(g()),
                    }
                )*
                all
            }

            /// What the option with clap id `id` applies to; None for an id not
            /// declared here.
            pub fn option(id: &str) -> Option<$crate::cli::Opt> {
                Self::declared().into_iter().find(|(i, _)| *i == id).map(|(_, o)| o)
            }
        }
    };
}

pub(crate) use options;
