# App::Prove::Plugin::StreamctsHosts - `prove -r tap/` in the repository root
# runs the suite as tools/run-suite does: the rule programs hand their runs to
# warm host processes (runtime/suite/host.h), in run-suite's order, at its default
# -j.  The repository's .proverc loads it (-Mlib=tools/lib -PStreamctsHosts);
# docs/prove.md says what it does and when it keeps out of the way.
#
# When every test prove is about to run is a program under tap/:
#   - tap/ must be built and current (`ninja -n` has no work): else one line
#     says so and how to build, and prove exits 2 before anything runs;
#   - the programs are put in tools/run-suite's order (tools/lib/order.sh:
#     those that start processes of their own spread among the rest) unless
#     -s, --shuffle, --reverse or --state leave the order to prove;
#   - without -j, as many at a time as run-suite runs (order.sh's suite_jobs);
#   - tools/lib/hosts-guard starts the hosts (tools/lib/host.sh) when a CUDA
#     driver and device are here, and STREAMCTS_HOST names them for the
#     programs; it stops them when prove ends, whatever ends it (its stdin is
#     a pipe only this process holds: Perl's handles are close-on-exec);
#   - without a CUDA driver or device no point can run: one line says why and
#     prove exits 3 before anything runs, as tools/run-suite does (prove's own
#     NOTESTS would exit 0: a run that tested nothing must not pass), unless
#     STREAMCTS_ALLOW_SKIP=1 (then the programs skip alone).
# It does nothing when STREAMCTS_HOST is set, even empty (the caller started
# hosts, or wants none: tools/run-suite, tools/settings-matrix), when prove
# runs anything else (tools/self-test), or outside the repository root.
package App::Prove::Plugin::StreamctsHosts;
use strict;
use warnings;
use Cwd qw(getcwd realpath);
use File::Spec;
use File::Temp;
use IO::Handle;
use IO::Select;
use POSIX qw(WNOHANG);
use Time::HiRes qw(sleep time);

my $ME = 'prove (.proverc: StreamctsHosts)';
my $START_S = 120;  # the probe (its own 60 s bound) and the hosts' start
my $STOP_S = 15;    # host_stop waits up to 10 s for the hosts' sockets
my $guard;          # {pid, pipe, dir}: while the hosts run

sub bad {
    my ($why) = @_;
    print STDERR "$ME: $why\n";
    exit 2;
}

# the tests prove will run, as it finds them (App::Prove::State, 3.44), or undef when that cannot be asked
sub tests_of {
    my ($app) = @_;
    my $state = $app->state_manager;
    return undef unless $state && $state->can('_get_raw_tests');
    my @argv = @{$app->argv};
    @argv = $app->recurse ? ('.') : ('t') unless @argv;  # as App::Prove::State::get_tests
    $state->extensions($app->extensions) if defined $app->extensions;
    return [$state->_get_raw_tests($app->recurse, @argv)];
}

sub under_tap {
    my ($root, $path) = @_;
    my $real = realpath($path) // return 0;
    return index($real, "$root/tap/") == 0;
}

# the lines `sh -c CODE` prints, with INPUT on its stdin: the facts live in tools/lib's shell libraries
sub sh_lines {
    my ($code, @input) = @_;
    my $in = File::Temp->new;
    print $in map {"$_\n"} @input;
    close $in;
    open(my $out, '-|', 'sh', '-c', "$code <\"\$1\"", 'sh', $in->filename) or die "$ME: sh: $!\n";
    my @l = <$out>;
    close $out;
    chomp @l;
    return @l;
}

# Exits 2 when ninja would build something: tap/ is older than its sources (or ninja -n failed).
sub stale {
    my $ninja;
    if (!open($ninja, '-|', 'ninja', '-n')) {
        print STDERR "$ME: no ninja here ($!): cannot tell whether tap/ is current with its sources\n";
        return;
    }
    my $n = do { local $/; <$ninja> } // '';
    close $ninja;
    bad("`ninja -n` failed (exit " . ($? >> 8) . "): cannot tell whether tap/ is current with its sources") if $?;
    return if $n =~ /^ninja: no work to do\.$/m;
    my $todo = () = $n =~ /^\[\d+\/\d+\] /mg;
    bad("tap/ is out of date with its sources (ninja would do $todo step" . ($todo == 1 ? '' : 's')
        . "): run ninja first (tools/run-suite builds, then runs)");
}

# Decides: returns the programs to run (in order), or undef when the plugin keeps out of the way.
# Sets the order and -j on $app; exits 2 when tap/ is missing or stale.
sub arrange {
    my ($app) = @_;
    return undef if exists $ENV{STREAMCTS_HOST};
    return undef unless -f 'tools/lib/host.sh' && -f 'tools/lib/order.sh' && -f 'build.ninja';
    my $root = realpath(getcwd());
    my @argv = @{$app->argv};
    for my $p (grep { !-e $_ } @argv) {  # tools/lib/prove-args.sh knows what ninja builds
        my $rel = File::Spec->abs2rel(File::Spec->rel2abs($p), $root);
        next unless $rel =~ m{^tap(/|$)};
        system('sh', '-c', '. tools/lib/prove-args.sh && prove_args_built "$1"', 'sh', $rel) == 0
            ? bad("$p: not built yet: run ninja (it builds tap/), or tools/run-suite, which builds and runs the suite")
            : bad("$p: no such file or directory, and ninja builds nothing there");
    }
    my $tests = tests_of($app) // return undef;
    return undef unless @$tests && !grep { !under_tap($root, $_) } @$tests;
    stale();
    my $keep = $app->shuffle || $app->backwards || @{$app->state || []};
    my @order = $keep ? @$tests : sh_lines('. tools/lib/order.sh && programs_spread', @$tests);
    @order = @$tests unless @order == @$tests;
    $app->argv([@order]) unless $keep;  # files, in this order: prove keeps it
    if (!$app->jobs) {
        my ($j) = sh_lines('. tools/lib/order.sh && suite_jobs');
        $app->jobs($j =~ /^([1-9][0-9]*)$/ ? $1 : 1);
    }
    return [@order];
}

# Starts tools/lib/hosts-guard; sets STREAMCTS_HOST when it says ready.  Exits 1 when a host did not start.
sub start {
    my ($app, $programs) = @_;
    my ($probe) = grep { !/\.mps\.t$/ } @$programs;
    return unless defined $probe;  # an MPS program starts its own server and runs in a process of its own
    pipe(my $r, my $w) or die "$ME: pipe: $!\n";      # prove's end ends it: the guard's stdin
    pipe(my $said, my $says) or die "$ME: pipe: $!\n";  # the guard's one line (not open '-|': its close waits)
    my $pid = fork // die "$ME: fork: $!\n";
    if (!$pid) {
        open STDIN, '<&', $r or POSIX::_exit(1);
        open STDOUT, '>&', $says or POSIX::_exit(1);
        { exec 'tools/lib/hosts-guard', $app->jobs, $probe }
        print STDERR "$ME: tools/lib/hosts-guard: $!\n";
        POSIX::_exit(1);  # not exit: END belongs to prove
    }
    close $r;
    close $says;
    $guard = {pid => $pid, pipe => $w};
    my $ready = IO::Select->new($said)->can_read($START_S);
    my $line = $ready ? <$said> : undef;
    close $said;
    chomp $line if defined $line;
    if (defined $line && $line =~ /^ready (.+)$/) {
        $guard->{dir} = $1;
        $ENV{STREAMCTS_HOST} = $1;
        return;
    }
    stop();
    if (defined $line && $line =~ /^none (.*)$/) {  # no driver or device: a run that tests nothing never passes
        return if ($ENV{STREAMCTS_ALLOW_SKIP} // '') eq '1';  # a CI machine without a GPU: the programs skip alone
        print STDERR "$ME: INCOMPLETE: $1: no point can run here (exit 3, as tools/run-suite)\n";
        exit 3;
    }
    print STDERR "$ME: tools/lib/hosts-guard did not start the hosts within $START_S s\n" unless $ready;
    exit 1;  # else host_start said why on stderr
}

# Ends the guard's pipe and waits for it (it stops the hosts), up to $STOP_S; then ends it (its lease with it).
sub stop {
    return unless $guard;
    my $g = $guard;
    undef $guard;
    close $g->{pipe};
    my $end = time + $STOP_S;
    while (waitpid($g->{pid}, WNOHANG) == 0) {
        if (time > $end) {
            print STDERR "$ME: tools/lib/hosts-guard did not stop the hosts within $STOP_S s; ending it\n";
            kill 'KILL', $g->{pid};
            waitpid($g->{pid}, 0);
            system('rm', '-rf', $g->{dir}) if defined $g->{dir};
            last;
        }
        sleep 0.02;
    }
    delete $ENV{STREAMCTS_HOST};
}

sub load {
    my ($class, $p) = @_;
    my $app = $p->{app_prove};
    my $programs = arrange($app) // return 1;
    # ^C or a kill: the hosts stop and prove's status is the signal's.  Not exit(): after END, global destruction
    # reaps the test programs whose host just stopped, and their status may become prove's (a CI run saw 255
    # for a SIGINT).  A prove that dies otherwise stops them in END, or closes the guard's pipe all the same.
    for my $sig ([INT => 130], [TERM => 143], [HUP => 129]) {
        my $code = $sig->[1];
        $SIG{$sig->[0]} = sub { stop(); STDOUT->flush; STDERR->flush; POSIX::_exit($code) };
    }
    start($app, $programs);
    return 1;
}

END {
    my $status = $?;
    stop();
    $? = $status;
}

1;
