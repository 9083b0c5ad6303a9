# certify::Summary - summary.txt of a certification bundle: one screen with
# the verdict, MUST points passed / failed / waived, DE-FACTO and SHOULD
# points not kept, vacuous and undecidable points, skips grouped by reason,
# programs that crashed or were killed, the comparison with a baseline and
# the wall time; the machine that ran the programs (and the one that
# rendered a log), the libraries that answered the driver entry points, the
# --layer and warnings about them (certify::EntryPoints).
#
#   my $text = certify::Summary::text($res, $prov, $wall_seconds);
package certify::Summary;
use strict;
use warnings;
use certify::EntryPoints;
use certify::Outcomes;

my $LIST = 8;  # items shown per list; the rest are counted (results.json has them all)

sub list {
    my ($title, @items) = @_;
    return '' unless @items;
    my ($indent) = $title =~ /^( *)/;
    my $s = "\n$title (" . scalar(@items) . "):\n";
    $s .= "$indent  $_\n" for @items[0 .. ($#items < $LIST - 1 ? $#items : $LIST - 1)];
    $s .= "  ... and " . (@items - $LIST) . " more (results.json)\n" if @items > $LIST;
    return $s;
}

sub text {
    my ($res, $prov, $wall) = @_;
    my @p = @{$res->{points}};
    my %n;
    $n{"$_->{level} $_->{outcome}"}++, $n{$_->{outcome}}++ for @p;
    my $s = "$res->{verdict}: $res->{headline}\n\n";
    my $gpu = join(' | ', @{$prov->{gpu}{names}}) || 'none seen';
    $s .= sprintf "%-14s %s\n", 'GPU:', $gpu . (@{$prov->{gpu}{uuids}} ? " (" . join(' | ', @{$prov->{gpu}{uuids}}) . ")" : '');
    $s .= sprintf "%-14s %s\n", 'driver:', join(' | ', @{$prov->{driver}{versions}}) || 'unknown';
    my $co = $prov->{suite}{checkout};  # a live run: the checkout it built and ran
    $s .= sprintf "%-14s %s\n", 'suite:', join(' | ', @{$prov->{suite}{revisions}})
        || ($co ? "$co->{commit}" . ($co->{dirty} ? ' with uncommitted changes' : '') . ' (this checkout)' : 'unknown');
    my $h = $prov->{host};
    $s .= sprintf "%-14s %s\n", 'host:', $h->{name} eq 'unknown' ? $h->{from} : "$h->{name} ($h->{kernel})";
    my $r = $prov->{renderer};
    if (defined $prov->{from_log}) {  # the log's machine may be another: say which
        my $same = grep { $_ eq $r->{name} } @{$h->{names}};
        $s .= sprintf "%-14s %s\n", 'rendered by:', "$r->{name} ($r->{kernel}), from $prov->{from_log}"
            . (!@{$h->{names}} ? '' : $same ? ': the machine that ran it' : ': not the machine that ran it');
    }
    $s .= sprintf "%-14s %s\n", "$_->[0]:", $_->[1] for certify::EntryPoints::facts($prov->{entry_points});
    $s .= sprintf "%-14s %s\n\n", 'wall time:', defined $wall ? "${wall} s" : 'unknown (rendered from a log)';
    my $must = grep { $_->{level} eq 'MUST' } @p;
    my @m = map { $n{"MUST $_"} // 0 } qw(pass fail waived skip);
    my $other = $must - $m[0] - $m[1] - $m[2] - $m[3];
    $s .= sprintf "MUST points:   %d passed, %d failed, %d waived, %d skipped%s (of %d)\n", @m,
        $other ? ", $other vacuous or undecidable" : '', $must;
    $s .= sprintf "not kept:      %s points (do not fail certification)\n",
        join(', ', map { ($n{"$_ not-kept"} // 0) . " $_" } certify::Outcomes::levels_to('not-kept'));
    $s .= sprintf "not seen:      %d %s points (permitted, not promised: observations)\n", $n{'not-seen'},
        join(' or ', certify::Outcomes::levels_to('not-seen')) if $n{'not-seen'};
    $s .= sprintf "also:          %d vacuous controls, %d undecidable points, %d points in all\n",
        $n{vacuous} // 0, $n{undecidable} // 0, scalar @p;
    my @mp = @{$res->{mustpass}};
    my %m;
    $m{$_->{status}}++ for @mp;
    $s .= sprintf "mustpass:      %d MUST cases: %s\n", scalar @mp,
        join(', ', map { "$m{$_} $_" } grep { $m{$_} } qw(passed failed waived skipped undecided missing)) || 'none';
    my @fails = grep { $_->{outcome} eq 'fail' && $_->{case} } @p;  # the others make the run incomplete
    $s .= list('MUST points failed', map { "$_->{id}" . ($_->{classification} ? " [$_->{classification}]" : '')
        . ": " . ($_->{message} // '') } @fails);
    $s .= list('waived', map { "$_->{id}: $_->{waiver}{reason} ($_->{waiver}{ticket}, until $_->{waiver}{expiry})" }
        grep { $_->{outcome} eq 'waived' } @p);
    $s .= list('incomplete', @{$res->{incomplete}});
    $s .= list('programs crashed or killed', map { "$_->{path}: $_->{status}: $_->{reason}" }
        grep { $_->{status} =~ /crashed|timed out/ } @{$res->{programs}});
    my (%skip, @order);
    for (grep { $_->{status} eq 'skipped' } @{$res->{programs}}) { push @order, $_->{reason} unless $skip{$_->{reason}}++ }
    for (grep { $_->{outcome} eq 'skip' } @p) { my $r = "point: " . ($_->{message} // ''); push @order, $r unless $skip{$r}++ }
    $s .= list('skipped, by reason', map { "$skip{$_} x $_" } @order);
    if (my $b = $res->{baseline}) {
        $s .= "\nagainst the baseline $b->{dir} ($b->{verdict}): " . join(', ',
            map { scalar(@{$b->{$_}}) . " " . ($_ =~ s/_/ /gr) } qw(newly_failing newly_passing changed_level missing new)) . "\n";
        $s .= list('  newly failing', map {"$_->{id} ($_->{from} -> $_->{to})"} @{$b->{newly_failing}});
        $s .= list('  newly passing', map {"$_->{id} ($_->{from} -> $_->{to})"} @{$b->{newly_passing}});
        $s .= list('  changed level', map {"$_->{id} ($_->{from} -> $_->{to})"} @{$b->{changed_level}});
        $s .= list('  missing', map {"$_->{id} (was $_->{from})"} @{$b->{missing}});
    }
    return $s;
}

1;
