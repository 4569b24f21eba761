# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_seekprobe_global_optspecs
    string join \n c/command-overhead t/seek-transfer i/iops S/sync-write w/write force yes preserve seed= write-duration= queue-depth= duration= v/verbose p/physical-path s/ident l/with-name settle= format= json json-file= html= operator= ticket= sign-key= zones= zone-size= seek-profile seek-samples= scan block-size= start= end= slow-ms= io-timeout= block-sweep capacity-check sweep-duration= smr-check path-check smr-budget= smr-idle= plot= prometheus= compare qualify max-deviation= baseline= q/quiet parallel verify passes= bad-blocks= bad-blocks-size= burn-in no-discard resume= resume-changed new-run status-interval= smart smart-test= new new-max-hours= threshold= max-temp= history= no-history h/help V/version
end

function __fish_seekprobe_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_seekprobe_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_seekprobe_using_subcommand
    set -l cmd (__fish_seekprobe_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c seekprobe -n "__fish_seekprobe_needs_command" -l seed -d 'Seed of the random offsets of -i and -S (random by default; recorded in the JSON results so a run can be repeated)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l write-duration -d 'Seconds of flushed writes per size of -S (whole batches of 250 are written until this much has passed) (TIME: seconds, or with a unit: 500ms, 30s, 10m, 1h)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l queue-depth -d 'Requests kept in flight by -i' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l duration -d 'Seconds per request size of -i: new requests are issued while less than this has passed (TIME: seconds, or with a unit: 500ms, 30s, 10m, 1h)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l settle -d 'Seconds to pause before each timed line, as diskinfo\'s sync(), sleep, sync(), sync(); 0 (the default) only syncs. diskinfo sleeps 1 s (about 10 s per -t): --settle 1 does the same. Raise it on drives that need to settle after a burst (e.g. to let a write-back finish) (TIME: seconds, or with a unit: 500ms, 30s, 10m, 1h)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l format -d 'Output format: diskinfo\'s text (printed live), a table with percentiles, or JSON' -r -f -a "diskinfo\t'FreeBSD diskinfo\'s text, byte for byte'
table\t'A table per test with the spread and percentiles of every line'
json\t'The whole run as JSON (docs/json.md)'"
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l json-file -d 'Also write the whole run as JSON to FILE (rewritten after each disk, so a late failure loses nothing); `seekprobe render FILE` prints it again' -r -F
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l html -d 'Also write the qualification report, one self-contained HTML page, to FILE (rewritten after each disk, as --json-file is); see docs/report.md' -r -F
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l operator -d 'Who runs it: recorded in the run and shown in the report (free text)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l ticket -d 'The ticket, order or job the run belongs to: recorded in the run and shown in the report (free text)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l sign-key -d 'Sign the run file (--json-file, or a burn-in\'s own file) with this ed25519 SSH key once the run ends: FILE.sig beside it, which `ssh-keygen -Y verify -n seekprobe-record` and `seekprobe verify-record` check (docs/record.md). An OpenSSH private key file, or its .pub when an ssh-agent (SSH_AUTH_SOCK) holds it; checked before anything runs' -r -F
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l zones -d 'The transfer rate at N evenly spaced positions over the whole device (a zone curve; N defaults to 100). Write the number with =, as --zones=50' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l zone-size -d 'Bytes read at each position of --zones (reduced on small devices)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l seek-samples -d 'Timed reads at random distances for --seek-profile (the rotation, the track map, the full and a third of the stroke and the hops of 1 to 64 tracks take 2688 more)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l block-size -d 'Bytes per request of --scan and --verify' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l start -d 'Where --scan or --verify starts (bytes; KiB, MiB, GiB, TiB or K, M, G, T; kB, MB, GB, TB are powers of 1000), to resume part of a drive' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l end -d 'Where --scan or --verify ends (bytes, in the units of --start)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l slow-ms -d 'Blocks at least this slow are listed by --scan and --verify' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l io-timeout -d 'Give a request to a drive up after this long without an answer (seconds), in every test, the checks before them and smartctl\'s runs; that drive is then given up and the run goes on (TIME: seconds, or with a unit: 500ms, 30s, 10m, 1h)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l sweep-duration -d 'Seconds of queued reads per size of --block-sweep (TIME: seconds, or with a unit: 500ms, 30s, 10m, 1h)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l smr-budget -d 'The budget of --smr-check: bytes and/or time, whichever comes first, e.g. 40G,30m (the default), 8G, 10m; times end in s, m (minutes) or h, sizes in K, M, G, T' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l smr-idle -d 'Seconds --smr-check leaves the disk idle before its read probes (which then come 2 s apart, or closer after a shorter idle); 0 probes at once (TIME: seconds, or with a unit: 500ms, 30s, 10m, 1h)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l plot -d 'Draw the zone curve with the access times over the disk, the scan map, and the write rate of --smr-check, to an SVG file (with --zones, --seek-profile, --scan, --smr-check or --burn-in)' -r -F
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l prometheus -d 'Also write the run\'s figures in Prometheus\' text format to FILE, for node_exporter\'s textfile collector (rewritten atomically after each disk)' -r -F
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l max-deviation -d 'With --qualify: the largest deviation a figure may have, in percent (15 by default)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l baseline -d 'With --qualify: judge against a known-good run saved with --json-file' -r -F
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l passes -d 'Passes of --verify, each with fresh content' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l bad-blocks -d 'Write the blocks --verify found bad to FILE in badblocks\' format (one block number a line), for mke2fs -l / e2fsck -l; one disk per run' -r -F
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l bad-blocks-size -d 'The block size of the --bad-blocks list in bytes: the file system\'s block size (badblocks\' -b)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l resume -d 'Continue an interrupted --burn-in saved in FILE.json (by --json-file): the steps each drive completed are kept, the rest run; FILE.json is rewritten unless --json-file names another file. Refused for a finished burn-in, or one run with other options (each named). Without FILE.json: the file --json-file names, else the newest unfinished burn-in of the same drives and options saved without --json-file (a drive\'s name after --resume is a drive, not the file)' -r -F
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l status-interval -d 'Off a terminal (a log, Ansible, systemd), a status line per drive this often while it works, beside a line as each step starts and ends (seconds, or with an s, m or h suffix)' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l smart-test -d 'Run the drive\'s own self-test (short, conveyance or long; several in order, repeated or comma-separated) before the other tests, following it to its end; implies --smart. A kind the drive does not offer is skipped with a note; Ctrl-C aborts it on the drive' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l new-max-hours -d 'With --new: the power-on hours a new drive may have' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l threshold -d 'Tolerate up to N of a counter (on any drive, so a warning or FAIL moves), and a rise of up to N during a run. NAME is one of reallocated, reallocation-events, pending, offline-uncorrectable, reported-uncorrectable, grown-defects, uncorrected, media-errors, command-timeouts, crc (default 0), and for --new power-cycles (20), load-cycles (100), host-writes-gib (64); repeat the option for several' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l max-temp -d 'During a --burn-in (or --verify, --scan, --smr-check with --smart): the drive\'s temperature limit in °C (default: the drive\'s own, else 60). Above it a warning, and the drive\'s writes (a real drive\'s --scan and --verify: all its requests) pause until it is 5 °C below' -r
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l history -d 'The drive history database to record in and judge with, instead of the default (root: /var/lib/seekprobe/history.db; others: $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a serial or model are recorded only in a file named here' -r -F
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s c -l command-overhead -d 'I/O command overhead test (implies -v)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s t -l seek-transfer -d 'Seek and transfer test (implies -v)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s i -l iops -d 'Asynchronous random read IOPS test (implies -v)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s S -l sync-write -d 'Synchronous random write test, a ZFS SLOG test (implies -v, requires -w): DESTROYS DATA on the disk'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s w -l write -d 'Allow destructive write tests (-S, --verify, --capacity-check, --smr-check, --burn-in) and the write halves of --zones and --block-sweep; -p and -s accept it as diskinfo does'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l force -d 'With -w: write even though the disk carries a partition table or a file-system, RAID, LVM, ZFS, swap or LUKS signature (a mounted or held disk is refused anyway)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l yes -d 'With -w: do not ask for confirmation (required when standard input is not a terminal)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l preserve -d 'With -S or --capacity-check (and -w): read each block before overwriting it and write it back afterwards (untimed), also when interrupted. Refused beside a test that overwrites whole ranges (--zones or --block-sweep with -w, --verify, --smr-check, --burn-in)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s v -l verbose -d 'Print the fields one per line with a comment'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s p -l physical-path -d 'Print only the physical path of the disk'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s s -l ident -d 'Print only the disk ident (usually the serial number)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s l -l with-name -d 'With -p or -s: prefix each line with the device name and a tab'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l json -d 'Print the whole run as JSON instead of text (same as --format json)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l seek-profile -d 'Access time over seek distance (log-scale bins from 1 MiB to the full stroke), the seek times derived from it, and the rotation rate measured'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l scan -d 'A read-only surface scan: every block once, latencies bucketed, unreadable and slow ranges listed by sector; exit status 1 when sectors are unreadable'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l block-sweep -d 'ATTO-style: sequential reads from the start for request sizes from 4 KiB to 8 MiB, one at a time and --queue-depth deep'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l capacity-check -d 'With -w: is the drive as big as it says? Stamps a few hundred blocks over the whole reported size, reads them back, and says how much really stores data (fake flash); exit status 1 when it stores less'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l smr-check -d 'Hidden-SMR behaviour test (requires -w): sustained random writes until the write rate collapses as a drive-managed SMR cache does, or the budget runs out; then idle-time read probes. DESTROYS DATA on the disk'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l path-check -d 'Read-only path check of the drives named, run together by the check itself: each drive\'s sequential rate and seek stress alone, then with every drive at once, drives grouped by their path (controller, expander, PCIe link); says whether a loss is the path\'s (a note) or one drive\'s (a warning)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l compare -d 'After the disks, a table comparing them: a column per disk, a row per figure, each figure\'s deviation from the group median'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l qualify -d 'Judge the disks (implies --compare): a disk fails when a figure deviates from the group median, or from --baseline, by more than --max-deviation. Exit status 3 when one fails'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s q -l quiet -d 'No progress bar on standard error'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l parallel -d 'Probe the disks at the same time, exposing controller or backplane contention (the text of each disk is printed when all are done, in order)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l verify -d 'Destructive (with -w): write stamped content to every block of the range (--start, --end, --block-size as for --scan), flush, read it all back and check it; failed sectors listed by kind (unwritable, unreadable, corrupt, misdirected, stale); exit status 1 when any failed'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l burn-in -d 'The whole burn-in in one command (requires -w; DESTROYS DATA): SMART before, the short and conveyance self-tests, -t, --zones, on rotating drives a short flushed-write step (-S) and the write-verify pass, on flash the capacity check, the write-verify pass and a discard (TRIM), the long self-test, SMART after, and a verdict per drive with every reason. With --json-file the run is saved after each step'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l no-discard -d '--burn-in: do not discard (TRIM/UNMAP) a flash drive after its write-verify pass (by default it is discarded, so it starts clean)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l resume-changed -d 'With --resume: go on although the drive list changed (drives added, removed, or another drive under a saved name, each named when refused); the changed drives start their burn-in afresh'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l new-run -d 'Start a new burn-in although --json-file holds a saved burn-in, unfinished (which --resume would continue) or finished; the old file is kept beside it as FILE.json.old-N'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l smart -d 'Read the drive\'s SMART health through smartctl before the tests and after them: a "SMART health" block, what changed, and the health rules\' findings (with --qualify they join the verdict). Needs smartctl (smartmontools) except for simulated drives; a device without SMART gets a one-line note'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l new -d 'The drive is new: any reallocated, uncorrectable, grown-defect, media-error or command-timeout count, power-on hours above --new-max-hours, power cycles, load cycles or host writes above their limits, any wear and any past self-test failure fail it'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -l no-history -d 'Record nothing in the drive history, and judge without it'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "render" -d '`seekprobe render FILE.json`: print a saved run again, without touching any disk'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "compare" -d '`seekprobe compare A.json B.json ...`: compare saved runs (each may hold several disks), without touching any disk'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "report" -d '`seekprobe report RUN.json... -o report.html`: the qualification report of saved runs, one self-contained HTML page, without touching any disk'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "generate" -d '`seekprobe generate man|bash|zsh|fish|...`: the man page or shell completions, generated from these definitions'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "smart" -d '`seekprobe smart FILE.json [AFTER.json]`: judge a saved smartctl report without a drive'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "history" -d '`seekprobe history [SERIAL]`: the drives the history database knows, or one drive\'s runs; `import`, `ack` and `unack`'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "plan" -d '`seekprobe plan RUN.json... --layout L`: the command that builds the pool from the drives of saved runs, and why; nothing is run (docs/plan.md)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "sign" -d '`seekprobe sign RUN.json --key KEY`: sign a saved run with an SSH key (RUN.json.sig, which `ssh-keygen -Y verify -n seekprobe-record` checks)'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "verify-record" -d '`seekprobe verify-record RUN.json [--allowed-signers FILE]`: check a saved run\'s signature (RUN.json.sig) and say who signed it, when the run ended and each drive\'s identity and verdict'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "version" -d 'Print the version'
complete -c seekprobe -n "__fish_seekprobe_needs_command" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand render" -l format -d 'Output format' -r -f -a "diskinfo\t'FreeBSD diskinfo\'s text, byte for byte'
table\t'A table per test with the spread and percentiles of every line'
json\t'The whole run as JSON (docs/json.md)'"
complete -c seekprobe -n "__fish_seekprobe_using_subcommand render" -l plot -d 'Also draw the saved run\'s plots to an SVG file' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand render" -l prometheus -d 'Also write the saved run\'s figures in Prometheus\' text format to a file' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand render" -l allowed-signers -d 'An allowed_signers file, as `ssh-keygen -Y verify -f` reads it: the record\'s signature (RUN.json.sig beside it) must be by one of its keys, whose identity is then named' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand render" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand render" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand compare" -l max-deviation -d 'With --qualify: the largest deviation a figure may have, in percent (15 by default)' -r
complete -c seekprobe -n "__fish_seekprobe_using_subcommand compare" -l baseline -d 'With --qualify: judge against a known-good run saved with --json-file' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand compare" -l history -d 'The drive history database to record in and judge with, instead of the default (root: /var/lib/seekprobe/history.db; others: $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a serial or model are recorded only in a file named here' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand compare" -l qualify -d 'Judge the disks (implies --compare): a disk fails when a figure deviates from the group median, or from --baseline, by more than --max-deviation. Exit status 3 when one fails'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand compare" -l json -d 'Print the comparison (and verdicts) as JSON, for machines (docs/json.md)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand compare" -l no-history -d 'Record nothing in the drive history, and judge without it'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand compare" -s h -l help -d 'Print help'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand compare" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand report" -s o -l output -d 'Where to write the page' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand report" -l history -d 'The drive history database to record in and judge with, instead of the default (root: /var/lib/seekprobe/history.db; others: $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a serial or model are recorded only in a file named here' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand report" -l allowed-signers -d 'An allowed_signers file, as `ssh-keygen -Y verify -f` reads it: the record\'s signature (RUN.json.sig beside it) must be by one of its keys, whose identity is then named' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand report" -l no-history -d 'Record nothing in the drive history, and judge without it'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand report" -s h -l help -d 'Print help'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand report" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand generate" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand generate" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand smart" -l new-max-hours -d 'With --new: the power-on hours a new drive may have' -r
complete -c seekprobe -n "__fish_seekprobe_using_subcommand smart" -l threshold -d 'Tolerate up to N of a counter (on any drive, so a warning or FAIL moves), and a rise of up to N during a run. NAME is one of reallocated, reallocation-events, pending, offline-uncorrectable, reported-uncorrectable, grown-defects, uncorrected, media-errors, command-timeouts, crc (default 0), and for --new power-cycles (20), load-cycles (100), host-writes-gib (64); repeat the option for several' -r
complete -c seekprobe -n "__fish_seekprobe_using_subcommand smart" -l history -d 'The drive history database to record in and judge with, instead of the default (root: /var/lib/seekprobe/history.db; others: $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a serial or model are recorded only in a file named here' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand smart" -l new -d 'The drive is new: any reallocated, uncorrectable, grown-defect, media-error or command-timeout count, power-on hours above --new-max-hours, power cycles, load cycles or host writes above their limits, any wear and any past self-test failure fail it'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand smart" -l no-history -d 'Record nothing in the drive history, and judge without it'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand smart" -s h -l help -d 'Print help'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand smart" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and not __fish_seen_subcommand_from import ack unack help" -l format -d 'How the listing and a drive\'s runs are printed (table by default; import, ack and unack print a line each)' -r -f -a "table\t'A text table'
json\t'JSON, for machines (docs/history.md)'"
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and not __fish_seen_subcommand_from import ack unack help" -l history -d 'The drive history database to record in and judge with, instead of the default (root: /var/lib/seekprobe/history.db; others: $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a serial or model are recorded only in a file named here' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and not __fish_seen_subcommand_from import ack unack help" -l no-history -d 'Record nothing in the drive history, and judge without it'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and not __fish_seen_subcommand_from import ack unack help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and not __fish_seen_subcommand_from import ack unack help" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and not __fish_seen_subcommand_from import ack unack help" -a "import" -d 'Import runs saved with --json-file and other hosts\' history databases (a run already there is skipped)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and not __fish_seen_subcommand_from import ack unack help" -a "ack" -d 'Accept the findings with CODE (as docs/verdict.md names it, e.g. smart) of the drive\'s last run at their current figures: later runs show them acknowledged and do not judge them until the figure changes'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and not __fish_seen_subcommand_from import ack unack help" -a "unack" -d 'Undo `ack`: the findings with CODE are judged again'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and not __fish_seen_subcommand_from import ack unack help" -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from import" -l history -d 'The drive history database to record in and judge with, instead of the default (root: /var/lib/seekprobe/history.db; others: $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a serial or model are recorded only in a file named here' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from import" -l no-history -d 'Record nothing in the drive history, and judge without it'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from import" -s h -l help -d 'Print help'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from ack" -l history -d 'The drive history database to record in and judge with, instead of the default (root: /var/lib/seekprobe/history.db; others: $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a serial or model are recorded only in a file named here' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from ack" -l no-history -d 'Record nothing in the drive history, and judge without it'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from ack" -s h -l help -d 'Print help'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from unack" -l history -d 'The drive history database to record in and judge with, instead of the default (root: /var/lib/seekprobe/history.db; others: $XDG_DATA_HOME/seekprobe/history.db). Simulated drives and drives without a serial or model are recorded only in a file named here' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from unack" -l no-history -d 'Record nothing in the drive history, and judge without it'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from unack" -s h -l help -d 'Print help'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "import" -d 'Import runs saved with --json-file and other hosts\' history databases (a run already there is skipped)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "ack" -d 'Accept the findings with CODE (as docs/verdict.md names it, e.g. smart) of the drive\'s last run at their current figures: later runs show them acknowledged and do not judge them until the figure changes'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "unack" -d 'Undo `ack`: the findings with CODE are judged again'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand history; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand plan" -l layout -d 'The vdev shape: mirror (2-way), mirror:N, raidz1:N, raidz2:N, raidz3:N (N drives a vdev), raid6:N (raidz2:N), or stripe (no redundancy)' -r
complete -c seekprobe -n "__fish_seekprobe_using_subcommand plan" -l spares -d 'Hot spares to set aside (the slowest drives first)' -r
complete -c seekprobe -n "__fish_seekprobe_using_subcommand plan" -l for -d 'Whose command: zpool create (zfs) or mdadm --create (mdadm: mirror and raid6 shapes)' -r -f -a "zfs\t'OpenZFS: `zpool create`'
mdadm\t'Linux software RAID: `mdadm --create`'"
complete -c seekprobe -n "__fish_seekprobe_using_subcommand plan" -l name -d 'The pool\'s name (mdadm: the array\'s, /dev/md/NAME)' -r
complete -c seekprobe -n "__fish_seekprobe_using_subcommand plan" -l with-warnings -d 'Also take drives whose verdict is PASS with warnings'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand plan" -l json -d 'Print the plan as JSON (docs/plan.md)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand plan" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand plan" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand sign" -l key -d 'The ed25519 key to sign with: an OpenSSH private key file, or its .pub when an ssh-agent (SSH_AUTH_SOCK) holds it; the agent signs when it holds the key, as with `ssh-keygen -Y sign`' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand sign" -s h -l help -d 'Print help'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand sign" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand verify-record" -l allowed-signers -d 'An allowed_signers file, as `ssh-keygen -Y verify -f` reads it: the record\'s signature (RUN.json.sig beside it) must be by one of its keys, whose identity is then named' -r -F
complete -c seekprobe -n "__fish_seekprobe_using_subcommand verify-record" -s h -l help -d 'Print help'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand verify-record" -s V -l version -d 'Print version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand version" -s h -l help -d 'Print help'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "render" -d '`seekprobe render FILE.json`: print a saved run again, without touching any disk'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "compare" -d '`seekprobe compare A.json B.json ...`: compare saved runs (each may hold several disks), without touching any disk'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "report" -d '`seekprobe report RUN.json... -o report.html`: the qualification report of saved runs, one self-contained HTML page, without touching any disk'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "generate" -d '`seekprobe generate man|bash|zsh|fish|...`: the man page or shell completions, generated from these definitions'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "smart" -d '`seekprobe smart FILE.json [AFTER.json]`: judge a saved smartctl report without a drive'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "history" -d '`seekprobe history [SERIAL]`: the drives the history database knows, or one drive\'s runs; `import`, `ack` and `unack`'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "plan" -d '`seekprobe plan RUN.json... --layout L`: the command that builds the pool from the drives of saved runs, and why; nothing is run (docs/plan.md)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "sign" -d '`seekprobe sign RUN.json --key KEY`: sign a saved run with an SSH key (RUN.json.sig, which `ssh-keygen -Y verify -n seekprobe-record` checks)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "verify-record" -d '`seekprobe verify-record RUN.json [--allowed-signers FILE]`: check a saved run\'s signature (RUN.json.sig) and say who signed it, when the run ended and each drive\'s identity and verdict'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "version" -d 'Print the version'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and not __fish_seen_subcommand_from render compare report generate smart history plan sign verify-record version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and __fish_seen_subcommand_from history" -f -a "import" -d 'Import runs saved with --json-file and other hosts\' history databases (a run already there is skipped)'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and __fish_seen_subcommand_from history" -f -a "ack" -d 'Accept the findings with CODE (as docs/verdict.md names it, e.g. smart) of the drive\'s last run at their current figures: later runs show them acknowledged and do not judge them until the figure changes'
complete -c seekprobe -n "__fish_seekprobe_using_subcommand help; and __fish_seen_subcommand_from history" -f -a "unack" -d 'Undo `ack`: the findings with CODE are judged again'
