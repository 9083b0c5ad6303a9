# certify::Baseline - compares a certification run with an earlier bundle
# (--baseline DIR of tools/certify).
#
#   my $base = certify::Baseline::load($dir, $catalog_digest);
#       Reads DIR/results.json; dies "FILE:LINE: ..." when it is missing, not
#       JSON, not a certify bundle, or from another suite version (another
#       catalog of cases).
#   $res->{baseline} = certify::Baseline::compare($base, $res, $dir);
#       {dir, verdict, newly_failing, newly_passing, changed_level, missing,
#       new}: lists of {id, from, to} (outcomes, or levels for changed_level).
# A point fails when its outcome is fail, waived or not-kept, and passes
# when it is pass.
package certify::Baseline;
use strict;
use warnings;
use JSON::PP;

sub line_of {
    my ($text, $offset) = @_;
    return 1 + (() = substr($text, 0, $offset) =~ /\n/g);
}

sub load {
    my ($dir, $digest) = @_;
    my $file = "$dir/results.json";
    -d $dir or die "$dir: no such directory: --baseline takes an earlier bundle of tools/certify\n";
    open my $fh, '<', $file or die "$file: cannot read it ($!): --baseline takes an earlier bundle of tools/certify\n";
    my $text = do { local $/; <$fh> };
    close $fh;
    # JSON::XS where it is installed reads a whole suite's bundle 20 times as fast; JSON::PP says where bad text is
    my $base = eval { require JSON::XS; JSON::XS->new->decode($text) } // eval { JSON::PP->new->decode($text) };
    if (!$base) {
        my ($off) = $@ =~ /at character offset (\d+)/;
        die "$file:" . line_of($text, $off // 0) . ": not JSON: " . ($@ =~ s/ at \S+ line \d+\.\n//r =~ s/\n//gr) . "\n";
    }
    die "$file:1: not the results of tools/certify (no \"schema\": \"streamcts-certify-results/1\")\n"
        unless ref $base eq 'HASH' && ($base->{schema} // '') eq 'streamcts-certify-results/1' && ref $base->{points} eq 'ARRAY';
    my $theirs = $base->{suite}{catalog_sha256} // '';
    if ($theirs ne $digest) {
        my $line = $text =~ /"catalog_sha256"/ ? line_of($text, $-[0]) : 1;
        die "$file:$line: from another suite version: its catalog sha256 is " . substr($theirs, 0, 16)
            . ", this suite's " . substr($digest, 0, 16) . " (compare bundles of the same suite)\n";
    }
    return $base;
}

sub failing { $_[0] =~ /^(fail|waived|not-kept)$/ }

sub compare {
    my ($base, $res, $dir) = @_;
    my %old = map { $_->{id} => $_ } @{$base->{points}};
    my %cmp = (dir => $dir, verdict => $base->{verdict}, newly_failing => [], newly_passing => [],
        changed_level => [], missing => [], new => []);
    for my $p (@{$res->{points}}) {
        my $o = delete $old{$p->{id}};
        if (!$o) { push @{$cmp{new}}, {id => $p->{id}, from => undef, to => $p->{outcome}}; next }
        my %d = (id => $p->{id}, from => $o->{outcome}, to => $p->{outcome});
        push @{$cmp{newly_failing}}, \%d if failing($p->{outcome}) && !failing($o->{outcome});
        push @{$cmp{newly_passing}}, \%d if $p->{outcome} eq 'pass' && failing($o->{outcome});
        push @{$cmp{changed_level}}, {id => $p->{id}, from => $o->{level}, to => $p->{level}} if $o->{level} ne $p->{level};
    }
    push @{$cmp{missing}}, map { {id => $_, from => $old{$_}{outcome}, to => undef} } sort keys %old;
    return \%cmp;
}

1;
