# certify::Junit - junit.xml of a certification bundle, in the common JUnit
# format (selftest/tools/certify/junit.xsd).
#
#   my $xml = certify::Junit::xml($res, $prov);
# One <testsuite> per rule family and level ("event MUST", "event DE-FACTO",
# "event SHOULD"), one <testcase> per point (name: the point id, classname:
# its rule).  A MUST failure is <failure>; a waived one <skipped> with the
# waiver; a SKIP <skipped> with its reason; a DE-FACTO or SHOULD point not
# kept, a MAY point whose permitted behaviour was not seen, a vacuous control
# and an undecidable point pass with status="..."
# and their message in <system-out>, so CI does not fail them yet they stay
# apart from MUST failures.  Programs that crashed or were killed are
# <error> test cases of the suite "programs".
package certify::Junit;
use strict;
use warnings;
use certify::Outcomes;

sub esc {
    my ($s) = @_;
    $s //= '';
    $s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g; $s =~ s/"/&quot;/g;
    $s =~ s/([\x00-\x08\x0b\x0c\x0e-\x1f])/sprintf '&#x%x;', 0xfffd/ge;
    return $s;
}

sub testcase {
    my ($p) = @_;
    my $o = $p->{outcome};
    my $t = defined $p->{duration_ms} ? sprintf(' time="%.3f"', $p->{duration_ms} / 1000) : '';
    my $head = sprintf '    <testcase name="%s" classname="%s" status="%s"%s', esc($p->{id}), esc($p->{rule}), esc($o), $t;
    my $detail = join "\n", grep {defined} $p->{message}, "rerun: $p->{rerun}", "spec: " . ($p->{spec} // '?'),
        $p->{classification} ? "reruns: $p->{classification} (" . join(', ', @{$p->{reruns}}) . ")" : undef,
        @{$p->{timeline} || []};
    return "$head/>\n" if $o eq 'pass';
    return "$head>\n      <failure message=\"" . esc($p->{message}) . "\" type=\"MUST\">" . esc($detail) . "</failure>\n    </testcase>\n"
        if $o eq 'fail';
    return "$head>\n      <skipped message=\"" . esc("waived: $p->{waiver}{reason} ($p->{waiver}{ticket}, until $p->{waiver}{expiry})")
        . "\"/>\n      <system-out>" . esc($detail) . "</system-out>\n    </testcase>\n" if $o eq 'waived';
    return "$head>\n      <skipped message=\"" . esc($p->{message}) . "\"/>\n    </testcase>\n" if $o eq 'skip';
    return "$head>\n      <system-out>" . esc("$p->{directive}\n$detail") . "</system-out>\n    </testcase>\n";
}

sub xml {
    my ($res, $prov) = @_;
    my (%suite, @order);
    for my $p (@{$res->{points}}) {
        my $s = "$p->{family} $p->{level}";
        push @order, $s unless $suite{$s};
        push @{$suite{$s}}, $p;
    }
    my @bad = grep { $_->{status} =~ /crashed|timed out/ } @{$res->{programs}};
    my $host = esc($prov->{host}{name});
    my (%tot, $body);
    for my $s (sort @order) {
        my @p = @{$suite{$s}};
        my $f = grep { $_->{outcome} eq 'fail' } @p;
        my $k = grep { $_->{outcome} eq 'skip' || $_->{outcome} eq 'waived' } @p;
        $tot{tests} += @p; $tot{failures} += $f; $tot{skipped} += $k;
        my ($fam, $level) = split / /, $s;
        $body .= sprintf qq(  <testsuite name="%s" tests="%d" failures="%d" errors="0" skipped="%d" hostname="%s" timestamp="%s">\n),
            esc($s), scalar @p, $f, $k, $host, esc($prov->{date} =~ s/Z$//r);
        $body .= qq(    <properties>\n      <property name="family" value="@{[esc($fam)]}"/>\n)
            . qq(      <property name="level" value="@{[esc($level)]}"/>\n)
            . qq(      <property name="fails_certification" value="@{[certify::Outcomes::level_fails($level) ? 'yes' : 'no']}"/>\n    </properties>\n);
        $body .= testcase($_) for @p;
        $body .= "  </testsuite>\n";
    }
    if (@bad) {
        $tot{tests} += @bad; $tot{errors} += @bad;
        $body .= sprintf qq(  <testsuite name="programs" tests="%d" failures="0" errors="%d" skipped="0" hostname="%s" timestamp="%s">\n),
            scalar @bad, scalar @bad, $host, esc($prov->{date} =~ s/Z$//r);
        $body .= sprintf qq(    <testcase name="%s" classname="%s" status="%s">\n      <error message="%s" type="%s"/>\n    </testcase>\n),
            esc($_->{path}), esc($_->{rule}), esc($_->{status}), esc($_->{reason}), esc($_->{status}) for @bad;
        $body .= "  </testsuite>\n";
    }
    return qq(<?xml version="1.0" encoding="UTF-8"?>\n)
        . sprintf(qq(<testsuites name="streamcts certification: %s" tests="%d" failures="%d" errors="%d" skipped="%d">\n),
            esc($res->{verdict}), map { $tot{$_} // 0 } qw(tests failures errors skipped))
        . ($body // '') . "</testsuites>\n";
}

1;
