#!/usr/bin/perl
# The runtime's layers (docs/design.md, "The runtime's layers"): build.ninja's
# rt_include names runtime/'s folders bottom first, and a file of one folder
# includes headers of its own folder or of a folder before it, never of one
# after it.  Headers are included by their bare names through those -I flags,
# so no two may share a name, and every runtime source sits in a named folder.
use strict;
use warnings;
use FindBin;
use File::Basename qw(basename dirname);

chdir "$FindBin::Bin/../.." or die "cd: $!\n";
my ($n, @out) = (0);
sub check {
    my ($ok, $what, @why) = @_;
    $n++;
    push @out, ($ok ? 'ok' : 'not ok') . " $n - $what\n", map { "# $_\n" } $ok ? () : @why;
}

open my $ninja, '<', 'build.ninja' or die "build.ninja: $!\n";
my ($line) = grep { /^rt_include = / } <$ninja>;
close $ninja;
my @layers = $line ? ($line =~ /-I(\S+)/g) : ();
check(@layers > 1, "build.ninja's rt_include names the runtime's folders", 'no rt_include line with -I flags');
my %rank = map { $layers[$_] => $_ } 0 .. $#layers;

my @files = sort grep { -f } glob('runtime/*.[ch] runtime/*.def runtime/*/*.[ch] runtime/*/*.def');
my @stray = grep { !exists $rank{dirname($_)} } @files;
check(!@stray, 'every runtime source is in a folder rt_include names', map { "$_: its folder is not in rt_include" } @stray);

my %where;
push @{$where{basename($_)}}, $_ for grep { /\.(h|def)$/ } @files;
my @twice = grep { @{$where{$_}} > 1 } sort keys %where;
check(!@twice, 'no two runtime headers share a name', map { "$_: " . join(', ', @{$where{$_}}) } @twice);

my @up;
for my $f (@files) {
    open my $in, '<', $f or die "$f: $!\n";
    while (my $l = <$in>) {
        next unless $l =~ /^\s*#\s*include\s+"([^"]+)"/;
        my $h = $1;
        next unless $where{basename($h)} && $h !~ m{^\.\./\.\./};
        my $to = dirname($where{basename($h)}[0]);
        push @up, "$f:$.: includes $h, of $to, a layer above " . dirname($f) if $rank{$to} > $rank{dirname($f)};
    }
    close $in;
}
check(!@up, 'each runtime file includes only its own layer and the layers below it', @up);

print "TAP version 13\n1..$n\n", @out;
