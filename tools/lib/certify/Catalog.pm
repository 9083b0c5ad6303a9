# certify::Catalog - what the suite holds, for tools/certify: every case of
# generated/catalog.tsv (rule, level, compile modes, APIs, spec file:line)
# and every program generated/rules.ninja builds under tap/.
#
#   my $cat = certify::Catalog::load($root);
#   $cat->{cases}{$case_id}    {case, rule, level, modes => [...], apis => [...], devices, spec}
#   $cat->{rules}{$rule}       [case ids in catalog order]
#   $cat->{programs}           [tap paths, sorted]
#   $cat->{digest}             sha256 of catalog.tsv: which suite version this is
#   certify::Catalog::case_of($cat, $point_name)   the case a point name belongs to, or undef
#   certify::Catalog::expected($cat, $prog)        the case points (<case>.<api>, no controls)
#                                                  that program path $prog must report
package certify::Catalog;
use strict;
use warnings;
use Digest::SHA qw(sha256_hex);
use certify::Tap;

sub load {
    my ($root) = @_;
    my $file = "$root/generated/catalog.tsv";
    open my $fh, '<', $file or die "$file: cannot read it: $!\n";
    my $text = do { local $/; <$fh> };
    close $fh;
    my %cat = (cases => {}, rules => {}, order => [], digest => sha256_hex($text), programs => []);
    my @lines = split /\n/, $text;
    die "$file:1: not the suite's catalog (its header is not case_id, rule_id, level, ...)\n"
        unless @lines && $lines[0] =~ /^case_id\trule_id\tlevel\tmodes\tapis\tdevices\tspec$/;
    for my $i (1 .. $#lines) {
        my @f = split /\t/, $lines[$i], -1;
        die "$file:" . ($i + 1) . ": 7 tab-separated columns expected, found " . scalar(@f) . "\n" unless @f == 7;
        my %c = (case => $f[0], rule => $f[1], level => $f[2], modes => [split /,/, $f[3]],
            apis => [split /,/, $f[4]], devices => $f[5], spec => $f[6]);
        $cat{cases}{$f[0]} = \%c;
        push @{$cat{rules}{$f[1]}}, $f[0];
        push @{$cat{order}}, $f[0];
    }
    my $ninja = "$root/generated/rules.ninja";
    open $fh, '<', $ninja or die "$ninja: cannot read it: $!\n";
    while (<$fh>) { push @{$cat{programs}}, $1 if /^build (tap\/\S+\.t):/ }
    close $fh;
    @{$cat{programs}} = sort @{$cat{programs}};
    return \%cat;
}

sub case_of {
    my ($cat, $name) = @_;
    (my $c = $name) =~ s/\.control$//;
    $c =~ s/\.(driver|runtime)$// or return undef;
    return $cat->{cases}{$c} ? $c : undef;
}

sub expected {
    my ($cat, $path) = @_;
    my %id = certify::Tap::identify($path);
    my @names;
    for my $c (@{$cat->{rules}{$id{rule}} || []}) {
        my $case = $cat->{cases}{$c};
        next unless grep { $_ eq $id{mode} } @{$case->{modes}};
        push @names, map {"$c.$_"} @{$case->{apis}};
    }
    return @names;
}

1;
