#!/usr/bin/perl
# One outcome table, runtime/result/outcomes.def, and its readers agree: the runtime
# prints each point as its outcome's row says, tools/tap-summary and certify
# (certify::Outcomes, certify::Results) classify every point line as the table
# does, their verdicts fail exactly on the outcomes whose row fails, and
# docs/results.schema.json's $defs.outcome names the table's outcomes.
#   The runtime's points: build/selftest/report_points.prog (ninja selftest;
#   selftest/runtime/report_points.c) prints every point report.c can print,
#   each after a "# outcome NAME" line naming what report.c decided.
#   Lines made from the table: one per row a TAP line can carry and word of
#   its reason, the rows with no directive or reason included.
use strict;
use warnings;
use FindBin;
use lib "$FindBin::Bin/../../tools/lib";
use File::Temp qw(tempdir);
use JSON::PP;
use certify::Outcomes;
use certify::Results;
use certify::Tap;
chdir "$FindBin::Bin/../.." or die "chdir: $!\n";

my ($n, @out) = (0);
sub check {
    my ($ok, $name, @detail) = @_;
    $n++;
    push @out, ($ok ? "ok" : "not ok") . " $n - $name\n";
    push @out, map { "# $_\n" } grep { defined } (map { split /\n/ } @detail)[0 .. 14] unless $ok;
    return $ok;
}

# -- the table, read as certify reads it (strictly: a bad row dies) ------------
my @rows = eval { certify::Outcomes::rows() };
check(@rows > 0, "certify reads the outcome table runtime/result/outcomes.def", $@);
my %row = map { $_->{name} => $_ } @rows;

# -- the schema's outcomes are the table's -------------------------------------
my $schema = eval { local (@ARGV, $/) = ('docs/results.schema.json'); decode_json(<>) };
my @enum = $schema ? @{$schema->{'$defs'}{outcome}{enum} // []} : ();
check(join(' ', sort @enum) eq join(' ', sort keys %row),
    "docs/results.schema.json's \$defs.outcome names the table's outcomes",
    "schema: @enum", "table: " . join(' ', map { $_->{name} } @rows));

# -- the points: the runtime's, and lines made from the table ------------------
my $prog = 'build/selftest/report_points.prog';
my @lines = -x $prog ? `$prog 2>&1` : ();
chomp @lines;
check(@lines && $? == 0, "$prog prints every point report.c can print", -x $prog ? "exit $?" : "not built: run ninja selftest");
my @want = map { /^# outcome (\S+)$/ ? $1 : () } @lines;
my $tap = certify::Tap::program('tap/outcomes.t', \@lines, $prog, 1);
my @points = map { +{line => undef, want => shift(@want), pt => $_, runtime => 1} } @{$tap->{points}};
check(@points == 40 && !(grep { !defined $_->{want} } @points), "it printed 40 points, each after the outcome report.c decided",
    scalar(@points) . " points");
my %line_of; # the TAP line and YAML block of each runtime point, as it printed them
{
    my $i = -1;
    for my $l (@lines) {
        $i++ if $l =~ /^(not )?ok /;
        $line_of{$i} .= "$l\n" if $i >= 0 && $l !~ /^# outcome /;
    }
}
$points[$_]{line} = $line_of{$_} for 0 .. $#points;
for my $r (grep { $_->{tap} ne '' } @rows) {
    for my $word ($r->{reason} eq '' ? ('zzz') : split /\|/, $r->{reason}) {
        my $l = "$r->{tap} 1 - made.$r->{name}" . ($r->{directive} ne '' ? " # $r->{directive} $word and more" : '');
        my ($pt) = @{certify::Tap::program('tap/made.t', ['1..1', $l], 'made', 1)->{points}};
        push @points, {line => "$l\n", want => $r->{name}, pt => $pt};
    }
}

# -- the runtime prints each point as its row says ----------------------------
my %printed;
for my $p (grep { $_->{runtime} } @points) {
    my ($r, $pt) = ($row{$p->{want}}, $p->{pt});
    $printed{$p->{want}} = 1;
    my $sev = $pt->{yaml} ? $pt->{yaml}{severity} // '(none)' : '';
    check($r && ($pt->{ok} ? 'ok' : 'not ok') eq $r->{tap} && $pt->{directive} eq $r->{directive}
        && ($r->{reason} eq '' || $pt->{reason} =~ /^(?:$r->{reason})\b/) && $sev eq $r->{severity},
        "the runtime prints $pt->{name} as its row $p->{want} says (tap, directive, reason, severity)",
        $p->{line}, $r ? "row: $r->{tap} | $r->{directive} | $r->{reason} | $r->{severity}" : "no row $p->{want}");
}
my @unseen = grep { $_->{severity} ne '' && !$printed{$_->{name}} } @rows;
check(!@unseen, "every severity of the table is one the runtime printed", map { "not printed: $_->{name}" } @unseen);

# -- certify and tap-summary classify every point as the table does -----------
my @kinds = qw(fail not-kept vacuous undecidable); # tap-summary --row's columns after the points
my $tmp = tempdir(CLEANUP => 1);
for my $p (@points) {
    my $name = $p->{pt}{name};
    my $got = eval { certify::Results::outcome($p->{pt}) } // "(died: $@)";
    check($got eq $p->{want}, "certify: $name is $p->{want}", $p->{line}, "certify::Results::outcome: $got");

    # a prove log of one program that printed this point
    open my $fh, '>', "$tmp/log" or die "$tmp/log: $!\n";
    print $fh "tap/x/outcomes.t .. \n1..1\n$p->{line}ok\nAll tests successful.\nResult: PASS\n";
    close $fh;
    my $row = `tools/tap-summary --row x $tmp/log 2>/dev/null`;
    my $rc = $? >> 8;
    my @col = (split ' ', $row)[2 .. 5];
    my @exp = map { $_ eq $p->{want} ? 1 : 0 } @kinds;
    my $exit = certify::Outcomes::fails($p->{want}) ? 1 : $p->{want} eq 'skip' ? 3 : 0;
    check("@col" eq "@exp" && $rc == $exit, "tap-summary: $name is $p->{want}" . ($exit == 1 ? ' and fails the run' : ''),
        $p->{line}, "tap-summary --row: $row(exit $rc); want fail not-kept vacuous undecidable = @exp, exit $exit");
}

# -- a row fails where its TAP line fails under TAP (prove, the program's exit status) --
for my $r (grep { $_->{tap} ne '' } @rows) {
    my $tap_fails = $r->{tap} eq 'not ok' && $r->{directive} ne 'TODO' ? 1 : 0;
    check($r->{fails} == $tap_fails, "the table's $r->{name} " . ($tap_fails ? 'fails' : 'does not fail')
        . " a certification, as its TAP line does a TAP run", "fails column: $r->{fails}");
}

# -- certify's verdict fails on exactly the outcomes whose row fails -----------
for my $r (@rows) {
    my $res = {points => [{outcome => $r->{name}, case => 'c', level => 'MUST', point => 'c.driver',
        program => 'tap/x.t', message => 'm'}], programs => [], mustpass => []};
    certify::Results::decide($res);
    my $fails = $res->{verdict} eq 'NOT CERTIFIED' ? 1 : 0;
    check($fails == $r->{fails}, "certify: a MUST point $r->{name} " . ($r->{fails} ? 'fails' : 'does not fail') . ' a certification',
        "verdict $res->{verdict}: $res->{headline}");
}

# -- one level table, runtime/program/levels.def, and its readers agree --------
my @levels = eval { certify::Outcomes::levels() };
check(@levels > 0, "certify reads the level table runtime/program/levels.def", $@);
my @lnames = map { $_->{name} } @levels;
my @lenum = $schema ? @{$schema->{'$defs'}{level}{enum} // []} : ();
check("@lenum" eq "@lnames", "docs/results.schema.json's \$defs.level names the table's levels, in its order",
    "schema: @lenum", "table: @lnames");
for my $r (grep { my $o = $_->{name}; grep { $_->{violated} eq $o } @levels } @rows) {
    my @to = certify::Outcomes::levels_to($r->{name});
    check($r->{fails} || join('|', @to) eq $r->{reason},
        "the outcome $r->{name}'s reason column names exactly the levels that lead to it (" . join(', ', @to) . ")",
        "outcomes.def: '$r->{reason}'", "levels.def: " . join('|', @to));
}
check(join(' ', map { $_->{name} } grep { certify::Outcomes::fails($_->{violated}) } @levels) eq 'MUST',
    "only a MUST point that did not hold fails a certification",
    map { "$_->{name} -> $_->{violated}" } @levels);
{
    my @c = `grep -n -E '"(DE-FACTO|SHOULD|MAY)"' runtime/program/*.h runtime/*/*.c gen/streamcts/*.py tools/lib/certify/*.pm`;
    check(!@c, "no reader spells a level's name: they read the table", @c);
    my ($v) = eval { local @ARGV = ('runtime/program/levels.def'); grep { /^SC_RULE_LEVEL\(MUST,/ } <> };
    my $h = eval { local (@ARGV, $/) = ('runtime/program/streamcts.h'); <> } // '';
    check($v && $h =~ /#include "levels\.def"/ && $h !~ /SC_MUST = 1/, "streamcts.h makes enum sc_level from the table, MUST first",
        $v ? "streamcts.h does not include levels.def" : "levels.def's first row is not MUST");
}

# -- a table that cannot be read stops both readers ---------------------------
mkdir "$tmp/repo"; mkdir "$tmp/repo/$_" for qw(tools runtime runtime/result);
system('cp', 'tools/tap-summary', "$tmp/repo/tools/") == 0 or die "cp: $?\n";
open my $bad, '>', "$tmp/repo/runtime/result/outcomes.def" or die "$!\n";
print $bad "SC_POINT_OUTCOME(PASS, \"pass\", \"ok\", \"\", \"\", \"\")\n";  # a column short
close $bad;
my $err = `$tmp/repo/tools/tap-summary $tmp/log 2>&1`;
my $rc = $? >> 8;
check($rc == 2 && $err =~ /outcomes\.def: not a row of the outcome table/, "tap-summary stops (exit 2) at a row it cannot read",
    "exit $rc: $err");
$err = `$^X -I$FindBin::Bin/../../tools/lib -Mcertify::Outcomes -e '\$certify::Outcomes::TABLE = shift; certify::Outcomes::rows()' $tmp/repo/runtime/result/outcomes.def 2>&1`;
check($? != 0 && $err =~ /outcomes\.def:1: not a row of the outcome table/, "certify stops at a row it cannot read", $err);
unlink "$tmp/repo/runtime/result/outcomes.def";
$err = `$tmp/repo/tools/tap-summary $tmp/log 2>&1`;
$rc = $? >> 8;
check($rc == 2 && $err =~ /cannot read the outcome table/, "tap-summary stops (exit 2) without the table", "exit $rc: $err");

print "TAP version 13\n1..$n\n", @out;
