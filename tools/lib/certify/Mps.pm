# certify::Mps - one MPS control daemon for a live run's *.mps.t programs, as
# tools/run-suite starts one: tools/lib/mps.sh does it (mps_lease), so the
# start, the lock, the deadlines and the stop are in one place.
#
#   my $m = certify::Mps::start();
#       Runs `sh -c '. tools/lib/mps.sh && mps_lease certify'` from the
#       repository root and sets $ENV{STREAMCTS_MPS_DAEMON} to the directory it
#       prints (nothing when it started none: no control program, or a line on
#       stderr says why).  Its lease is a pipe only this process holds
#       (Perl's handles are close-on-exec): however certify ends, the helper
#       then stops the daemon.
#   certify::Mps::stop($m);
#       Ends the lease and waits for the helper (its quit has a deadline).
package certify::Mps;
use strict;
use warnings;
use IPC::Open2;

sub start {
    my ($out, $in);
    my $pid = open2($out, $in, 'sh', '-c', '. tools/lib/mps.sh && mps_lease certify');
    my $dir = <$out>;
    chomp $dir if defined $dir;
    $ENV{STREAMCTS_MPS_DAEMON} = $dir if defined $dir && length $dir;
    return {pid => $pid, in => $in, out => $out};
}

sub stop {
    my ($m) = @_;
    delete $ENV{STREAMCTS_MPS_DAEMON};
    close $m->{in};
    close $m->{out};
    waitpid($m->{pid}, 0);
}

1;
