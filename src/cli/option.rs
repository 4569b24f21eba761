//! One declaration per option: [`options!`] takes a struct of clap fields, each
//! with its doc comment (the help), its `#[arg]` (the name, the value's parser,
//! range and unit, the default) and, after `=>`, what it applies to ([`Opt`]);
//! it defines the clap struct and an `option(id)` function that answers what
//! each option applies to. The rules on options (config/rules.rs) and the lists of
//! the options that tune each test ([`crate::config::tuning`]) are read from there,
//! so that adding an option to a test touches its declaration and the code that
//! uses its value. ripgrep's `Flag` (one type per flag: its name, help and what it
//! sets) is the model.

/// What an option needs beside it on the probing command line to mean something,
/// and how diskinfo's -p and -s take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Opt {
    /// What it applies to.
    pub applies: Applies,
    /// How -p and -s take it.
    pub beside_id: BesideId,
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
        }
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
