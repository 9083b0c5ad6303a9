# certify::Html - report.html of a certification bundle: a static page (no
# script, nothing fetched) with the verdict, the provenance, one table of
# counts per rule family, the points of each family that were not kept, the
# comparison with a baseline, and for each failure its timeline as an SVG.
#
#   my $html = certify::Html::page($res, $prov, $summary_text);
#   my $svg  = certify::Html::timeline_svg(\@timeline_lines, $message);
# The timeline is the one the point's YAML block holds: on the host clock,
# one row per op, grouped by stream (host calls by host thread), each op a
# bar from its issue to when the host observed it complete, gates hatched,
# the gates' release a dashed line and an observation made while the gates
# were still closed (the one that decides a violation) in red; below, the
# ops' %globaltimer stamps on the device clock.
package certify::Html;
use strict;
use warnings;
use certify::EntryPoints;

my $MAX_SVG = 200;  # timelines drawn; the rest of the points not kept are listed

sub esc {
    my ($s) = @_;
    $s //= '';
    $s =~ s/&/&amp;/g; $s =~ s/</&lt;/g; $s =~ s/>/&gt;/g; $s =~ s/"/&quot;/g;
    return $s;
}

# the timeline's lines -> ops (name, lane, kind, issue, return, done, dev_start, dev_end), marks
sub parse_timeline {
    my ($lines) = @_;
    my (%op, @order, @marks, $end);
    for my $l (@$lines) {
        next unless $l =~ /^\s*([\d.]+) ms  (.*)$/;
        my ($t, $what) = ($1, $2);
        $end = $t;
        if ($what =~ /^issued (\S+) \((.*?)\)(?: in (\S+)(?: of process (\S+))?)?: returned after ([\d.]+) ms/) {
            my ($name, $desc, $thread, $proc, $dt) = ($1, $2, $3, $4, $5);
            my ($kind, $lane) = $desc =~ /^(.*) on (\S+)$/ ? ($1, $2) : ($desc, 'host ' . ($thread // 'main'));
            $lane .= " ($proc)" if $proc && $lane !~ /^host/;
            $op{$name} = {name => $name, kind => $kind, lane => $lane, issue => $t, ret => sprintf('%.3f', $t + $dt)};
            push @order, $name;
        } elsif ($what =~ /^observed (\S+) complete( \(gates closed\))?/ && $op{$1}) {
            $op{$1}{done} = $t;
            push @marks, {t => $t, text => $what, decides => $2 ? 1 : 0};
        } elsif ($what =~ /^gates released: (.*)$/) {
            push @marks, {t => $t, text => $what, release => 1};
        } elsif ($what =~ /^%globaltimer (\S+): start \+([\d.]+) us, end \+([\d.]+) us/ && $op{$1}) {
            @{$op{$1}}{qw(dev_start dev_end)} = ($2, $3);
        } else {
            push @marks, {t => $t, text => $what};
        }
    }
    return ([map { $op{$_} } @order], \@marks, $end // 0);
}

sub timeline_svg {
    my ($lines, $message) = @_;
    my ($ops, $marks, $end) = parse_timeline($lines);
    return '' unless @$ops;
    # one row per op, the ops of a stream together, in the order the streams were first used
    my (@streams, %ops_of);
    for (@$ops) { push @streams, $_->{lane} unless $ops_of{$_->{lane}}; push @{$ops_of{$_->{lane}}}, $_ }
    my @rows = map { @{$ops_of{$_}} } @streams;
    my @lanes = map {"$_->{lane}: $_->{name}"} @rows;
    my %lane = map { $rows[$_]{name} => $_ } 0 .. $#rows;
    my ($W, $L, $LH) = (900, 150, 20);
    my $span = $end > 0 ? $end : 1;
    my $x = sub { sprintf '%.1f', $L + ($_[0] / $span) * ($W - $L - 20) };
    my $host_h = 30 + @lanes * $LH;
    my @dev = grep { defined $_->{dev_start} } @$ops;
    my $dev_span = 0;
    for (@dev) { $dev_span = $_->{dev_end} if $_->{dev_end} > $dev_span }
    $dev_span ||= 1;
    my $dx = sub { sprintf '%.1f', $L + ($_[0] / $dev_span) * ($W - $L - 20) };
    # each labelled mark (the deciding observations, the release) on a row of its own under the lanes
    my $labels = grep { $_->{release} || $_->{decides} } @$marks;
    my $dev_top = $host_h + 16 + 12 * ($labels > 2 ? $labels : 2);
    my $H = $dev_top + (@dev ? 30 + @lanes * $LH : 0) + 10;
    my $s = qq(<svg xmlns="http://www.w3.org/2000/svg" class="timeline" width="$W" height="$H" viewBox="0 0 $W $H" role="img">\n)
        . qq(<title>@{[esc($message)]}</title>\n)
        . qq(<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">)
        . qq(<rect width="6" height="6" fill="#f4d58d"/><line x1="0" y1="0" x2="0" y2="6" stroke="#b8860b" stroke-width="2"/></pattern></defs>\n)
        . qq(<text x="4" y="14" class="axis">host clock, ms from the case's start (0 .. $end)</text>\n);
    for my $i (0 .. $#lanes) {
        my $y = 24 + $i * $LH;
        $s .= qq(<text x="4" y="@{[$y + 14]}" class="lane">@{[esc($lanes[$i])]}</text>)
            . qq(<line x1="$L" y1="@{[$y + $LH - 2]}" x2="@{[$W - 20]}" y2="@{[$y + $LH - 2]}" class="grid"/>\n);
    }
    for my $o (@$ops) {
        my $y = 24 + $lane{$o->{name}} * $LH + 3;
        my $to = $o->{done} // $o->{ret};
        my $gate = $o->{kind} =~ /gate/;
        my $w = sprintf '%.1f', $x->($to) - $x->($o->{issue});
        $w = 2 if $w < 2;
        $s .= qq(<g class="op"><title>@{[esc("$o->{name} ($o->{kind}): issued at $o->{issue} ms, returned at $o->{ret} ms"
            . (defined $o->{done} ? ", observed complete at $o->{done} ms" : ''))]}</title>)
            . qq(<rect x="@{[$x->($o->{issue})]}" y="$y" width="$w" height="14" fill="@{[$gate ? 'url(#hatch)' : '#9ecae1']}" stroke="#3d5a80"/>)
            . qq(<rect x="@{[$x->($o->{issue})]}" y="@{[$y + 10]}" width="@{[sprintf '%.1f', ($x->($o->{ret}) - $x->($o->{issue})) < 1 ? 1 : $x->($o->{ret}) - $x->($o->{issue})]}" height="4" fill="#3d5a80"/>)
            . qq(<text x="@{[$x->($o->{issue}) + 3]}" y="@{[$y + 10]}" class="opname">@{[esc($o->{name})]}</text></g>\n);
    }
    my $row = 0;
    for my $m (@$marks) {
        my $mx = $x->($m->{t});
        my $cls = $m->{release} ? 'release' : $m->{decides} ? 'decides' : 'mark';
        $s .= qq(<g class="$cls"><title>@{[esc("$m->{t} ms: $m->{text}")]}</title>)
            . qq(<line x1="$mx" y1="20" x2="$mx" y2="@{[$host_h]}"/>)
            . ($m->{release} || $m->{decides} ? qq(<text x="@{[$mx > $W / 2 ? $mx - 3 : $mx + 3]}" y="@{[$host_h + 12 * ++$row]}")
                . ($mx > $W / 2 ? ' text-anchor="end"' : '') . qq(>@{[esc($m->{release} ? 'gates released' : $m->{text})]}</text>) : '')
            . "</g>\n";
    }
    if (@dev) {
        $s .= qq(<text x="4" y="@{[$dev_top + 10]}" class="axis">%globaltimer, us from the first stamp (0 .. $dev_span)</text>\n);
        for my $i (0 .. $#lanes) {
            my $y = $dev_top + 20 + $i * $LH;
            $s .= qq(<text x="4" y="@{[$y + 14]}" class="lane">@{[esc($lanes[$i])]}</text>)
                . qq(<line x1="$L" y1="@{[$y + $LH - 2]}" x2="@{[$W - 20]}" y2="@{[$y + $LH - 2]}" class="grid"/>\n);
        }
        for my $o (@dev) {
            my $y = $dev_top + 20 + $lane{$o->{name}} * $LH + 3;
            my $w = sprintf '%.1f', $dx->($o->{dev_end}) - $dx->($o->{dev_start});
            $w = 2 if $w < 2;
            $s .= qq(<g class="op"><title>@{[esc("$o->{name}: device start +$o->{dev_start} us, end +$o->{dev_end} us")]}</title>)
                . qq(<rect x="@{[$dx->($o->{dev_start})]}" y="$y" width="$w" height="14" fill="@{[$o->{kind} =~ /gate/ ? 'url(#hatch)' : '#a1d99b']}" stroke="#31a354"/>)
                . qq(<text x="@{[$dx->($o->{dev_start}) + 3]}" y="@{[$y + 10]}" class="opname">@{[esc($o->{name})]}</text></g>\n);
        }
    }
    return "$s</svg>\n";
}

sub table {
    my ($head, @rows) = @_;
    return "<table>\n<tr>" . join('', map { "<th>" . esc($_) . "</th>" } @$head) . "</tr>\n"
        . join('', map { "<tr>" . join('', map { "<td>" . esc($_) . "</td>" } @$_) . "</tr>\n" } @rows) . "</table>\n";
}

my @KINDS = qw(pass fail waived not-kept not-seen vacuous undecidable skip todo);

sub page {
    my ($res, $prov, $summary) = @_;
    my (%fam, @fams);
    for my $p (@{$res->{points}}) {
        push @fams, $p->{family} unless $fam{$p->{family}};
        $fam{$p->{family}}{$p->{outcome}}++;
        $fam{$p->{family}}{points}++;
        push @{$fam{$p->{family}}{list}}, $p unless $p->{outcome} eq 'pass';
    }
    @fams = sort @fams;
    my $verdict_class = $res->{verdict} eq 'CERTIFIED' ? 'good' : $res->{verdict} eq 'INCOMPLETE' ? 'warn' : 'bad';
    my $h = <<"HEAD";
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>streamcts certification: @{[esc($res->{verdict})]}</title>
<style>
body { font: 14px/1.4 sans-serif; margin: 1.5em; color: #222 }
h1 span.good { color: #2e7d32 } h1 span.bad { color: #c62828 } h1 span.warn { color: #b26a00 }
table { border-collapse: collapse; margin: .5em 0 1.2em } td, th { border: 1px solid #ccc; padding: 2px 8px; text-align: left }
th { background: #eee } td.n { text-align: right } pre { background: #f7f7f7; padding: .6em; overflow-x: auto }
svg.timeline { border: 1px solid #ccc; background: #fff; display: block; margin: .4em 0 }
svg text { font: 11px sans-serif } svg text.axis { fill: #555 } svg text.opname { font-size: 9px }
svg line.grid { stroke: #eee } g.release line { stroke: #1565c0; stroke-dasharray: 4 3 } g.release text { fill: #1565c0 }
g.decides line { stroke: #c62828; stroke-width: 2 } g.decides text { fill: #c62828 } g.mark line { stroke: #bbb }
.failure { border-left: 4px solid #c62828; padding-left: .8em; margin: 1em 0 }
</style></head><body>
<h1>streamcts certification: <span class="$verdict_class">@{[esc($res->{verdict})]}</span></h1>
<p>@{[esc($res->{headline})]}</p>
<pre class="summary">@{[esc($summary)]}</pre>
HEAD
    $h .= "<h2>Provenance</h2>\n" . table(['what', 'value'],
        ['GPU', join(' | ', @{$prov->{gpu}{names}})], ['GPU UUID', join(' | ', @{$prov->{gpu}{uuids}})],
        ['compute capability', join(' | ', @{$prov->{gpu}{compute_capabilities}})],
        ['driver', join(' | ', @{$prov->{driver}{versions}})], ['CUDA (driver)', join(' | ', @{$prov->{driver}{cuda_versions}})],
        ['runtime built with', join(' | ', @{$prov->{toolkit}{cudart}})], ['suite revision', join(' | ', @{$prov->{suite}{revisions}})],
        ['catalog sha256', $prov->{suite}{catalog_sha256}], ['MPS', $prov->{mps}],
        ['host (ran the programs)', $prov->{host}{name} eq 'unknown' ? $prov->{host}{from} : "$prov->{host}{name} ($prov->{host}{kernel})"],
        defined $prov->{from_log} ? (['rendered by', "$prov->{renderer}{name} ($prov->{renderer}{kernel}): $prov->{renderer}{role}"]) : (),
        certify::EntryPoints::facts($prov->{entry_points}),
        ['date', $prov->{date}], ['command', join(' ', @{$prov->{command}})]);
    $h .= "<h2>Families</h2>\n" . table(['family', 'points', @KINDS],
        map { my $f = $fam{$_}; [$_, $f->{points}, map { $f->{$_} // 0 } @KINDS] } @fams);
    my $drawn = 0;
    my @fails = grep { $_->{outcome} =~ /^(fail|waived|not-kept|undecidable)$/ && $_->{timeline} } @{$res->{points}};
    @fails = sort { ($a->{outcome} eq 'fail' ? 0 : $a->{outcome} eq 'waived' ? 1 : 2) <=> ($b->{outcome} eq 'fail' ? 0 : $b->{outcome} eq 'waived' ? 1 : 2) } @fails;
    $h .= "<h2>Timelines of the points not kept</h2>\n";
    $h .= "<p>None: every point that ran was kept.</p>\n" unless @fails;
    for my $p (@fails) {
        last if ++$drawn > $MAX_SVG;
        $h .= qq(<div class="failure" id="@{[esc($p->{id})]}"><h3>@{[esc($p->{outcome})]} (@{[esc($p->{level})]}): @{[esc($p->{id})]}</h3>\n)
            . "<p>" . esc($p->{message}) . "</p>\n"
            . ($p->{classification} ? "<p>reruns: " . esc("$p->{classification} (" . join(', ', @{$p->{reruns}}) . ")") . "</p>\n" : '')
            . ($p->{waiver} ? "<p>waived: " . esc("$p->{waiver}{reason} ($p->{waiver}{ticket}, until $p->{waiver}{expiry})") . "</p>\n" : '')
            . timeline_svg($p->{timeline}, $p->{message})
            . "<p>rerun: <code>" . esc($p->{rerun}) . "</code>; spec " . esc($p->{spec} // '?') . "; source: " . esc($p->{source} // '?') . "</p>\n"
            . "<details><summary>timeline</summary><pre>" . esc(join("\n", @{$p->{timeline}})) . "</pre></details></div>\n";
    }
    $h .= "<p>" . (@fails - $MAX_SVG) . " more are in the tables below and results.json.</p>\n" if @fails > $MAX_SVG;
    if (my $b = $res->{baseline}) {
        $h .= "<h2>Against the baseline " . esc($b->{dir}) . " (" . esc($b->{verdict}) . ")</h2>\n";
        for my $k (qw(newly_failing newly_passing changed_level missing new)) {
            $h .= "<h3>" . esc($k =~ s/_/ /gr) . " (" . scalar(@{$b->{$k}}) . ")</h3>\n";
            $h .= table(['point', 'was', 'now'], map { [$_->{id}, $_->{from} // '-', $_->{to} // '-'] } @{$b->{$k}}) if @{$b->{$k}};
        }
    }
    my @bad = grep { $_->{status} ne 'ran' } @{$res->{programs}};
    $h .= "<h2>Programs that did not run whole</h2>\n" . table(['program', 'status', 'why'], map { [$_->{path}, $_->{status}, $_->{reason} // ''] } @bad)
        if @bad;
    for my $f (@fams) {
        my @l = @{$fam{$f}{list} || []};
        next unless @l;
        $h .= "<h2>" . esc($f) . ": points not passed</h2>\n"
            . table(['point', 'level', 'outcome', 'message', 'spec'], map { [$_->{id}, $_->{level}, $_->{outcome}, $_->{message} // '', $_->{spec} // ''] } @l);
    }
    return "$h</body></html>\n";
}

1;
