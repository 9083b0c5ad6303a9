# certify::Run - runs streamcts programs for tools/certify: each under a time
# bound (`timeout -k`), N at a time, its TAP kept in the bundle, with a
# progress line on a terminal; and reruns failed points alone.
#
#   my @progs = certify::Run::programs(\%opt, $bundle, @paths);
#       %opt: jobs, timeout (seconds per program), kill_after (seconds),
#       progress (1 on a terminal).  Returns certify::Tap programs with ms,
#       exit, signal and timed_out set.
#   certify::Run::rerun(\%opt, $res, $n)
#       Runs each failed point's case alone $n times (`PROGRAM --case CASE
#       --api API`) and sets its reruns (outcomes) and classification:
#       consistent (it failed every time) or flaky (it passed at least once).
package certify::Run;
use strict;
use warnings;
use Time::HiRes qw(time);
use POSIX qw(WNOHANG);
use File::Temp;
use certify::Tap;
use certify::Results;

sub find_programs {
    my (@paths) = @_;
    my @found;
    for my $p (@paths) {
        if (-d $p) {
            open my $fh, '-|', 'find', $p, '-name', '*.t', '(', '-type', 'f', '-o', '-type', 'l', ')' or die "find: $!\n";
            push @found, map { chomp; s{//+}{/}g; $_ } <$fh>;
            close $fh;
        } else { push @found, $p }
    }
    my %seen;
    return sort grep { !$seen{$_}++ } @found;
}

# runs argv under timeout; returns (exit, signal, timed_out, ms)
sub start {
    my ($opt, $out, $err, @argv) = @_;
    my $pid = fork // die "fork: $!\n";
    if (!$pid) {
        open STDOUT, '>', $out or die "$out: $!\n";
        open STDERR, '>', $err or die "$err: $!\n";
        open STDIN, '<', '/dev/null';
        exec 'timeout', '-k', $opt->{kill_after}, $opt->{timeout}, @argv or die "timeout: $!\n";
    }
    return $pid;
}

sub status {
    my ($opt, $wstat, $ms) = @_;
    my $code = $wstat >> 8;
    return (undef, $wstat & 127, 0) if $wstat & 127;
    return ($code, 0, $opt->{timeout}) if ($code == 124 || $code == 137) && $ms >= $opt->{timeout} * 1000;
    return ($code, $code - 128, 0) if $code > 128;
    return ($code, 0, 0);
}

sub slurp_lines {
    my ($f) = @_;
    open my $fh, '<', $f or return ();
    my @l = <$fh>;
    chomp @l;
    return @l;
}

# the programs in the order tools/run-suite starts them (tools/lib/order.sh), else as given
sub spread {
    my (@progs) = @_;
    my $tmp = File::Temp->new;
    print $tmp map { "$_\n" } @progs;
    close $tmp;
    my @out = qx(sh -c '. tools/lib/order.sh && programs_spread' <'$tmp');
    chomp @out;
    return @out == @progs ? @out : @progs;
}

sub programs {
    my ($opt, $bundle, @paths) = @_;
    my @todo = spread(find_programs(@paths));
    my $total = @todo;
    my (%run, @done);
    my ($failing, $t0) = (0, time);
    my $progress = sub {
        return unless $opt->{progress};
        printf STDERR "\rcertify: %d/%d programs, %d failing, %d s elapsed ", scalar @done, $total, $failing, time - $t0;
    };
    $progress->();
    while (@todo || %run) {
        while (@todo && keys %run < $opt->{jobs}) {
            my $path = shift @todo;
            (my $rel = $path) =~ s{^.*?(?:^|/)tap/}{};
            my $out = "$bundle->{tmp}/tap/$rel";
            system('mkdir', '-p', $out =~ s{/[^/]*$}{}r) == 0 or die "mkdir: cannot make the directory of $out\n";
            my $pid = start($opt, $out, "$out.stderr", $path =~ m{/} ? $path : "./$path");
            $run{$pid} = {path => $path, out => $out, t => time};
        }
        my $pid = waitpid(-1, 0);
        next unless $pid > 0 && $run{$pid};
        my $r = delete $run{$pid};
        my $ms = int((time - $r->{t}) * 1000);
        my ($exit, $signal, $timed_out) = status($opt, $?, $ms);
        unlink "$r->{out}.stderr" if -z "$r->{out}.stderr";
        my @lines = slurp_lines($r->{out});
        my $p = certify::Tap::program($r->{path}, \@lines, $r->{out} =~ s{^.*?/tap/}{tap/}r, 1);
        @$p{qw(exit signal timed_out ms)} = ($exit, $signal, $timed_out, $ms);
        $failing += grep { !$_->{ok} && $_->{directive} ne 'TODO' } @{$p->{points}};
        push @done, $p;
        $progress->();
    }
    print STDERR "\n" if $opt->{progress};
    return sort { $a->{path} cmp $b->{path} } @done;
}

sub rerun {
    my ($opt, $res, $n) = @_;
    my @failed = grep { $_->{outcome} eq 'fail' && $_->{case} } @{$res->{points}};
    return unless @failed && $n > 0;
    my $tmp = "$opt->{scratch}/rerun";
    system('mkdir', '-p', $tmp) == 0 or die "mkdir: cannot make $tmp\n";
    my $i = 0;
    for my $pt (@failed) {
        print STDERR "\rcertify: rerunning failed point ", ++$i, " of ", scalar @failed, " ($n times each) " if $opt->{progress};
        my $prog = $pt->{program} =~ m{/} ? $pt->{program} : "./$pt->{program}";
        my @outcomes;
        for my $k (1 .. $n) {
            my $t = time;
            my $pid = start($opt, "$tmp/out", "$tmp/err", $prog, '--case', $pt->{case}, '--api', $pt->{api});
            waitpid($pid, 0);
            my ($exit, $signal, $timed_out) = status($opt, $?, int((time - $t) * 1000));
            my @lines = slurp_lines("$tmp/out");
            my $p = eval { certify::Tap::program($pt->{program}, \@lines, "rerun of $pt->{point}", 1) };
            my ($again) = grep { $_->{name} eq $pt->{point} } @{$p ? $p->{points} : []};
            push @outcomes, $timed_out ? 'timed out' : $again ? certify::Results::outcome($again)
                : $signal ? "crashed (signal $signal)" : 'not reported';
        }
        $pt->{reruns} = \@outcomes;
        $pt->{classification} = (grep { $_ eq 'pass' } @outcomes) ? 'flaky' : 'consistent';
    }
    print STDERR "\n" if $opt->{progress};
}

1;
