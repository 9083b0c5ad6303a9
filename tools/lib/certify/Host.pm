# certify::Host - the host processes a live run's programs hand their runs to
# (runtime/suite/host.h), as tools/run-suite starts them: build/host-legacy and
# build/host-ptds, each with N workers whose CUDA context stays warm from one
# program to the next.
#
#   my $h = certify::Host::start($dir, $workers);
#       Starts both, serving $dir, and sets $ENV{STREAMCTS_HOST}; dies with
#       the reason when one does not start.  Their lease is a FIFO only this
#       process holds open (Perl's handles are close-on-exec): they end with it.
#   my @ended = certify::Host::stop($h);
#       Ends the lease, waits up to 10 s (a host gives its workers 5 s after
#       SIGTERM) for the hosts to stop their workers and remove their sockets,
#       and returns the log lines of workers that ended while they ran (a
#       program whose run such a worker held failed, saying so in its TAP).
package certify::Host;
use strict;
use warnings;
use Time::HiRes qw(sleep);

my @HOSTS = (['build/host-legacy', 'legacy'], ['build/host-ptds', 'per-thread']);

sub start {
    my ($dir, $workers) = @_;
    system('mkfifo', "$dir/lease") == 0 or die "mkfifo: cannot make $dir/lease\n";
    open my $lease, '+<', "$dir/lease" or die "$dir/lease: $!\n";
    for my $h (@HOSTS) {
        my ($prog, $mode) = @$h;
        my $log = "$dir/$mode.log";
        my $pid = fork // die "fork: $!\n";
        if (!$pid) {
            open STDOUT, '>', $log or die "$log: $!\n";
            open STDERR, '>&', \*STDOUT or die "$log: $!\n";
            open STDIN, '<', '/dev/null';
            exec $prog, '--serve', $dir, '--lease', "$dir/lease", '--workers', $workers or die "$prog: $!\n";
        }
        waitpid($pid, 0);  # it returns once it listens, and serves in the background
        if ($? != 0) {
            open my $fh, '<', $log;
            my @l = $fh ? <$fh> : ();
            chomp(my $why = $l[-1] // 'no reason given');
            die "$prog did not start: $why\n";
        }
    }
    $ENV{STREAMCTS_HOST} = $dir;
    return {dir => $dir, lease => $lease};
}

sub stop {
    my ($h) = @_;
    close $h->{lease};
    delete $ENV{STREAMCTS_HOST};
    for (1 .. 200) {
        last unless grep { -e "$h->{dir}/$_->[1].sock" } @HOSTS;
        sleep 0.05;
    }
    my @ended;
    for my $mode (map { $_->[1] } @HOSTS) {
        open my $fh, '<', "$h->{dir}/$mode.log" or next;
        push @ended, grep { /: worker .* ended/ } <$fh>;
    }
    chomp @ended;
    return @ended;
}

1;
