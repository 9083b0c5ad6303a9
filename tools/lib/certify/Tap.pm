# certify::Tap - reads the TAP that streamcts programs print, for tools/certify.
#
#   my $prog = certify::Tap::program($path, \@lines, $file, $first_line);
#       One program's TAP (the lines it printed, without newlines) as a hash:
#       path, rule, family, mode (legacy | per-thread), mps (0|1), header
#       (the '# key: value' lines), plan, skip_all (the reason of a
#       '1..0 # SKIP'), points (see below) and problems (why the program's
#       output is not whole: no plan, fewer points than planned).  $file and
#       $first_line name where the lines came from, for error messages.
#   my @progs = certify::Tap::prove_log($file);
#       The programs of a verbose prove log (`prove -r -v [--timer] [-jN]`),
#       each as above plus prove's verdict: ms (with --timer), exit and
#       signal (from 'Dubious' and the Test Summary Report), finished (the
#       log holds prove's Result line).
# A point: n, name, ok (0|1), directive (TODO | SKIP | ''), reason, yaml
# (key => value; timeline => [lines]) and line ("FILE:LINE" of its TAP line).
# A program that stopped inside a YAML block has that in its problems.  A
# log that is bad input dies with "FILE:LINE: message" (it ends inside a
# program's output, or holds no program).
package certify::Tap;
use strict;
use warnings;

# "..." as runtime/result/tap.c's sc_yaml_quote writes it
sub unquote {
    my ($s) = @_;
    return $s unless $s =~ /^"(.*)"$/s;
    $s = $1;
    my %esc = (n => "\n", t => "\t", r => "\r", '"' => '"', '\\' => '\\');
    $s =~ s/\\(x([0-9a-fA-F]{2})|.)/defined $2 ? chr(hex $2) : ($esc{$1} \/\/ $1)/ge;
    return $s;
}

# tap/<rule as a path>[.ptds][.mps].t -> rule, family, mode, mps
sub identify {
    my ($path) = @_;
    my $rel = $path;
    $rel =~ s{^.*?(?:^|/)tap/}{};
    my $mps = $rel =~ s/\.mps\.t$/.t/ ? 1 : 0;
    my $mode = $rel =~ s/\.ptds\.t$/.t/ ? 'per-thread' : 'legacy';
    $rel =~ s/\.t$//;
    (my $rule = $rel) =~ s{/}{.}g;
    (my $family = $rule) =~ s/\..*//;
    return (rule => $rule, family => $family, mode => $mode, mps => $mps);
}

sub program {
    my ($path, $lines, $file, $first) = @_;
    my %p = (path => $path, identify($path), header => {}, comments => [], points => [],
        plan => undef, skip_all => undef, problems => [], tap => join('', map {"$_\n"} @$lines));
    my ($point, $yaml, $listkey, $yaml_at);
    for my $i (0 .. $#$lines) {
        my $l = $lines->[$i];
        my $at = "$file:" . ($first + $i);
        if ($yaml) {
            if ($l =~ /^\s*\.\.\.\s*$/) { $point->{yaml} = $yaml; undef $yaml; next }
            if ($l =~ /^    - (.*)$/ && defined $listkey) { push @{$yaml->{$listkey}}, unquote($1); next }
            if ($l =~ /^  ([A-Za-z_][\w-]*):\s*$/) { $listkey = $1; $yaml->{$1} = []; next }
            if ($l =~ /^  ([A-Za-z_][\w-]*): (.*)$/) { $yaml->{$1} = unquote($2); undef $listkey; next }
            $point->{yaml} = $yaml;  # the block ends early: the program stopped inside it
            push @{$p{problems}}, "its output ends inside the YAML block begun at $yaml_at";
            undef $yaml;
        }
        if ($l =~ /^  ---\s*$/ && $point && !$point->{yaml}) { $yaml = {}; $yaml_at = $at; undef $listkey; next }
        if ($l =~ /^1\.\.(\d+)\s*(?:#\s*skip\S*:?\s*(.*))?$/i) {
            $p{plan} = $1 + 0;
            $p{skip_all} = (defined $2 && $2 ne '' ? $2 : 'no reason given') if $1 == 0;
            next;
        }
        if ($l =~ /^(not )?ok\b\s*(\d*)\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(todo|skip)\S*:?\s*(.*))?$/i) {
            $point = {n => $2 eq '' ? @{$p{points}} + 1 : $2 + 0, name => $3, ok => $1 ? 0 : 1,
                directive => defined $4 ? uc $4 : '', reason => $5 // '', yaml => undef, line => $at};
            push @{$p{points}}, $point;
            next;
        }
        if ($l =~ /^# ([a-zA-Z][\w ]*?): (.*)$/ && !exists $p{header}{$1}) { $p{header}{$1} = $2; next }
        if ($l =~ /^# (.*)$/) { push @{$p{comments}}, $1; next }
    }
    if ($yaml) {
        $point->{yaml} = $yaml;
        push @{$p{problems}}, "its output ends inside the YAML block begun at $yaml_at";
    }
    my $seen = @{$p{points}};
    if (!defined $p{plan}) { push @{$p{problems}}, 'no plan: the program ended before it said how many points it has' }
    elsif ($p{plan} != $seen) { push @{$p{problems}}, "planned $p{plan} points, reported $seen" }
    return \%p;
}

my $start_re = qr/^(?:\[[0-9:]+\] )?(\S+\.t) \.+(?: (.*))?$/;
my $end_re = qr/^(?:(?:ok|not ok)(?:\s+\d+ ms\b.*)?|Failed \d+\/\d+ subtests\s*|No subtests run\s*|All \d+ subtests passed\s*)$/;

sub prove_log {
    my ($file) = @_;
    open my $fh, '<', $file or die "$file: cannot read it: $!\n";
    my @lines = <$fh>;
    close $fh;
    chomp @lines;
    my (@progs, %by_path, $cur, $summary, $sfile);
    my $finished = 0;
    my $close = sub {
        return unless $cur;
        my $p = program($cur->{path}, $cur->{lines}, $file, $cur->{first});
        $p->{$_} = $cur->{$_} for grep { exists $cur->{$_} } qw(ms exit signal);
        $p->{skip_all} //= $cur->{skip_line} if defined $cur->{skip_line};
        $p->{tap} = "1..0 # SKIP $cur->{skip_line}\n" if defined $cur->{skip_line};  # what prove showed as "skipped: ..."
        $p->{problems} = [] if defined $cur->{skip_line};
        push @progs, $p;
        $by_path{$p->{path}} = $p;
        undef $cur;
    };
    for my $i (0 .. $#lines) {
        my $l = $lines[$i];
        if (!$summary && $l =~ $start_re) {
            $close->();
            my ($path, $rest) = ($1, $2 // '');
            $cur = {path => $path, lines => [], first => $i + 2, ended => 0};
            if ($rest =~ /^skipped: (.*)$/) { $cur->{skip_line} = $1; $cur->{ended} = 1; $close->() }
            next;
        }
        if ($l =~ /^Test Summary Report/) { $close->(); $summary = 1; next }
        if ($l =~ /^Result: /) { $close->(); $finished = 1; $summary = 1; next }
        if ($l =~ /^Files=\d+, Tests=/) { $close->(); $summary = 1; next }
        if ($summary) {
            if ($l =~ /^(\S+\.t)\s+\(Wstat: (\d+)/) {
                $sfile = $by_path{$1};
                if ($sfile) { $sfile->{exit} = $2 >> 8; $sfile->{signal} = $2 & 127 }
            }
            next;
        }
        next unless $cur;
        if ($l =~ /^Dubious, test returned (\d+) \(wstat (\d+)/) { $cur->{exit} = $1; $cur->{signal} = $2 & 127; next }
        if ($l =~ $end_re) {
            $cur->{ended} = 1;
            $cur->{ms} = $1 if $l =~ /^(?:ok|not ok)\s+(\d+) ms/;
            $cur->{exit} //= 0 if $l =~ /^ok\b/;
            next;
        }
        push @{$cur->{lines}}, $l;
    }
    if ($cur && !$cur->{ended}) {
        die "$file:" . scalar(@lines) . ": the log ends inside the output of $cur->{path} (begun at line "
            . ($cur->{first} - 1) . "): it is cut short\n";
    }
    $close->();
    die "$file:1: no program's output in it: not the log of `prove -v` over streamcts programs\n" unless @progs;
    $_->{finished} = $finished for @progs;
    return @progs;
}

1;
