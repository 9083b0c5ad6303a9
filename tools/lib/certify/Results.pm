# certify::Results - turns the programs certify::Tap read into the records
# of a certification run and decides its verdict.
#
#   my $res = certify::Results::build($cat, \@programs);
#       $res->{points}    one record per point (the fields of docs/certify.md)
#       $res->{programs}  one record per program that ran, skipped or crashed
#       $res->{mustpass}  per MUST case: status (passed failed waived skipped
#                         missing), why, points
#   certify::Results::decide($res, %notes)
#       Sets verdict (CERTIFIED, NOT CERTIFIED, INCOMPLETE), exit_status
#       (0, 1, 3), headline and incomplete (the reasons).  %notes:
#       unfinished => why the run is not whole (a log with no Result line);
#       incomplete => [further reasons] (the --layer library not reached).
#       Call it again after waivers or reruns changed outcomes.
package certify::Results;
use strict;
use warnings;
use JSON::PP ();
use certify::Catalog;
use certify::Outcomes;

# outcome of a TAP point, from the outcome table (runtime/result/outcomes.def)
sub outcome {
    my ($pt) = @_;
    return certify::Outcomes::classify($pt->{ok}, $pt->{directive}, $pt->{reason});
}

sub point_record {
    my ($cat, $prog, $pt) = @_;
    my $y = $pt->{yaml} || {};
    my $case = certify::Catalog::case_of($cat, $pt->{name});
    my $c = $case ? $cat->{cases}{$case} : undef;
    my ($api) = $pt->{name} =~ /\.(driver|runtime)(?:\.control)?$/;
    my $mode = $prog->{mode} . ($prog->{mps} ? '.mps' : '');
    my $duration;
    if (my $tl = $y->{timeline}) { ($duration) = ($tl->[-1] // '') =~ /^\s*([\d.]+) ms/ }
    my $message = $y->{message} // ($pt->{directive} eq 'SKIP' ? $pt->{reason} : undef);
    return {
        id => "$pt->{name}\@$mode",
        point => $pt->{name},
        program => $prog->{path},
        family => $prog->{family},
        case => $case,
        rule => $c ? $c->{rule} : $prog->{rule},
        level => $y->{level} // ($c ? $c->{level} : 'MUST'),
        api => $y->{api} // $api,
        compile_mode => $prog->{mode},
        mps => $prog->{mps} ? JSON::PP::true() : JSON::PP::false(),
        part => $pt->{name} =~ /\.control$/ ? 'control' : 'case',
        outcome => outcome($pt),
        directive => $pt->{directive} ? "$pt->{directive} $pt->{reason}" : undef,
        message => $message,
        duration_ms => defined $duration ? $duration + 0 : undef,
        program_ms => defined $prog->{ms} ? $prog->{ms} + 0 : undef,
        rerun => $y->{rerun} // ($case ? "$prog->{path} --case '$case' --api $api" : $prog->{path}),
        spec => $c ? $c->{spec} : $y->{spec},
        source => $y->{source} // $prog->{header}{source},
        timeline => $y->{timeline},
        tap_line => $pt->{line},
    };
}

sub program_record {
    my ($prog) = @_;
    my $status = 'ran';
    my @why = @{$prog->{problems}};
    if ($prog->{timed_out}) { $status = 'timed out'; unshift @why, "killed after its time bound ($prog->{timed_out} s)" }
    elsif ($prog->{signal}) { $status = 'crashed'; unshift @why, "killed by signal $prog->{signal}" }
    elsif (defined $prog->{skip_all}) { $status = 'skipped'; @why = ($prog->{skip_all}) }
    elsif (@why) { $status = 'crashed' }
    elsif ($prog->{exit} && !grep { !$_->{ok} && $_->{directive} ne 'TODO' } @{$prog->{points}}) {
        $status = 'crashed';
        push @why, "exited $prog->{exit} though no point failed";
    }
    return {
        path => $prog->{path}, rule => $prog->{rule}, family => $prog->{family},
        compile_mode => $prog->{mode}, mps => $prog->{mps} ? JSON::PP::true() : JSON::PP::false(),
        status => $status, reason => @why ? join('; ', @why) : undef,
        exit => defined $prog->{exit} ? $prog->{exit} + 0 : undef, signal => $prog->{signal} ? $prog->{signal} + 0 : undef,
        ms => defined $prog->{ms} ? $prog->{ms} + 0 : undef,
        planned => $prog->{plan}, reported => scalar @{$prog->{points}},
    };
}

sub build {
    my ($cat, $progs) = @_;
    my %res = (points => [], programs => [], by_id => {});
    for my $prog (@$progs) {
        push @{$res{programs}}, program_record($prog);
        for my $pt (@{$prog->{points}}) {
            my $r = point_record($cat, $prog, $pt);
            next if $res{by_id}{$r->{id}};  # a --repeat run reports a point again: its first report stands
            push @{$res{points}}, $r;
            $res{by_id}{$r->{id}} = $r;
        }
    }
    mustpass(\%res, $cat);
    return \%res;
}

# per MUST case: did every point the suite plans for it run, and how did they end
sub mustpass {
    my ($res, $cat) = @_;
    my %prog = map { $_->{path} => $_ } @{$res->{programs}};
    my %mp;
    for my $path (@{$cat->{programs}}) {
        my %id = certify::Tap::identify($path);
        my $mode = $id{mode} . ($id{mps} ? '.mps' : '');
        my $p = $prog{$path};
        for my $name (certify::Catalog::expected($cat, $path)) {
            my $case = certify::Catalog::case_of($cat, $name);
            next unless $cat->{cases}{$case}{level} eq 'MUST';
            my $e = $mp{$case} //= {case => $case, points => 0, seen => {}};
            $e->{points}++;
            my $r = $res->{by_id}{"$name\@$mode"};
            my $st = $r ? $r->{outcome}
                : !$p ? "missing: $path is not in the run"
                : $p->{status} eq 'skipped' ? "skip: $p->{reason}"
                : "missing: $path $p->{status}" . ($p->{reason} ? " ($p->{reason})" : '');
            $st = "skip: $r->{message}" if $r && $st eq 'skip';
            push @{$e->{seen}{$st =~ /^(\w+)/ ? $1 : $st}}, $st;
        }
    }
    for my $e (values %mp) {
        my $s = $e->{seen};
        my $only_skips = !grep { $_ ne 'skip' } keys %$s;
        my $status = $s->{missing} ? 'missing' : $s->{fail} ? 'failed' : $s->{waived} ? 'waived'
            : $only_skips ? 'skipped' : $s->{pass} ? 'passed' : 'undecided';
        my $why = $status eq 'missing' ? $s->{missing}[0] : $status eq 'skipped' ? $s->{skip}[0] : undef;
        $why =~ s/^\w+: // if defined $why;
        $e->{status} = $status;
        $e->{why} = $why;
        $e->{ran} = $e->{points} - ($s->{missing} ? @{$s->{missing}} : 0) - ($s->{skip} ? @{$s->{skip}} : 0);
        delete $e->{seen};
    }
    $res->{mustpass} = [map { $mp{$_} } grep { $mp{$_} } @{$cat->{order}}];
}

sub count {
    my ($list, $test) = @_;
    return scalar grep { $test->($_) } @$list;
}

sub decide {
    my ($res, %notes) = @_;
    my @p = @{$res->{points}};
    my @fails = grep { certify::Outcomes::fails($_->{outcome}) && $_->{case} } @p;
    my @other = grep { certify::Outcomes::fails($_->{outcome}) && !$_->{case} } @p;
    my @bad = grep { $_->{status} eq 'crashed' || $_->{status} eq 'timed out' } @{$res->{programs}};
    my @missing = grep { $_->{status} eq 'missing' } @{$res->{mustpass}};
    my $ran = count(\@p, sub { $_[0]{outcome} ne 'skip' });
    my @inc;
    if (!$ran) {
        my %why;
        $why{$_->{reason} // 'every point skipped'}++ for grep { $_->{status} eq 'skipped' } @{$res->{programs}};
        my $n = @{$res->{programs}};
        my $reasons = join '; ', map { ($why{$_} == $n ? "all $n programs" : "$why{$_} of $n programs") . " skipped: $_" }
            sort { $why{$b} <=> $why{$a} || $a cmp $b } keys %why;
        push @inc, (grep {/no CUDA (driver|device)/} keys %why) ? "no CUDA device: $reasons" : "no point ran: $reasons";
    }
    push @inc, "$_->{point} failed in $_->{program}: " . ($_->{message} // 'no message') for @other;
    push @inc, "$_->{path} $_->{status}: $_->{reason}" for @bad;
    push @inc, scalar(@missing) . " of " . scalar(@{$res->{mustpass}}) . " MUST cases did not run every point (mustpass.txt)"
        if @missing && $ran;
    push @inc, $notes{unfinished} if $notes{unfinished};
    push @inc, @{$notes{incomplete} // []};  # e.g. the --layer library not reached (certify::EntryPoints)
    $res->{incomplete} = \@inc;
    my $must = count(\@p, sub { $_[0]{level} eq 'MUST' && $_[0]{outcome} ne 'skip' });
    my $waived = count(\@p, sub { $_[0]{outcome} eq 'waived' });
    if (@fails) {
        @$res{qw(verdict exit_status)} = ('NOT CERTIFIED', 1);
        my $flaky = count(\@fails, sub { ($_[0]{classification} // '') eq 'flaky' });
        $res->{headline} = scalar(@fails) . " MUST point" . (@fails == 1 ? '' : 's') . " failed"
            . ($flaky ? " ($flaky of them flaky)" : '') . (@inc ? "; and the run is incomplete: $inc[0]" : '');
    } elsif (@inc) {
        @$res{qw(verdict exit_status headline)} = ('INCOMPLETE', 3, $inc[0]);
    } else {
        @$res{qw(verdict exit_status)} = ('CERTIFIED', 0);
        $res->{headline} = "every MUST point ran and passed ($must points" . ($waived ? ", $waived waived" : '') . ")";
    }
}

1;
