# certify::Bundle - the directory tools/certify writes, whole or not at all:
# everything goes to DIR.tmp, which replaces DIR only when it is complete.
#
#   my $b = certify::Bundle::begin($dir);    # dies when DIR is something else
#   $b->tap($program_path, $text);           # tap/<path under tap/>
#   $b->file($name, $text);
#   $b->finish;                              # DIR.tmp -> DIR
#   $b->abort;                               # DIR.tmp removed (also at exit)
#   certify::Bundle::results_json($res, $prov)   results.json's text
#   certify::Bundle::mustpass($res, $cat)        mustpass.txt's text
package certify::Bundle;
use strict;
use warnings;
use File::Path qw(make_path remove_tree);
use File::Basename qw(dirname);
use JSON::PP;

my @open;

sub begin {
    my ($dir) = @_;
    if (-e $dir) {
        die "$dir: exists and is not a directory\n" unless -d $dir;
        opendir my $dh, $dir or die "$dir: cannot read it: $!\n";
        my @in = grep { !/^\.\.?$/ } readdir $dh;
        die "$dir: exists and is not a bundle of tools/certify (no results.json): give another -o DIR\n"
            if @in && !-f "$dir/results.json";
    }
    my $tmp = "$dir.tmp";
    remove_tree($tmp) if -e $tmp;
    make_path("$tmp/tap");
    my $b = bless {dir => $dir, tmp => $tmp}, __PACKAGE__;
    push @open, $b;
    return $b;
}

sub file {
    my ($b, $name, $text) = @_;
    my $f = "$b->{tmp}/$name";
    make_path(dirname($f));
    open my $fh, '>', $f or die "$f: cannot write it: $!\n";
    print $fh $text;
    close $fh or die "$f: cannot write it: $!\n";
}

sub tap {
    my ($b, $path, $text) = @_;
    (my $rel = $path) =~ s{^.*?(?:^|/)tap/}{};
    $b->file("tap/$rel", $text);
}

sub finish {
    my ($b) = @_;
    my $old = "$b->{dir}.old.$$";
    rename $b->{dir}, $old or die "$b->{dir}: cannot move the earlier bundle aside: $!\n" if -e $b->{dir};
    rename $b->{tmp}, $b->{dir} or die "$b->{dir}: cannot put the bundle in place: $!\n";
    remove_tree($old) if -e $old;
    @open = grep { $_ != $b } @open;
}

sub abort {
    my ($b) = @_;
    remove_tree($b->{tmp}) if -e $b->{tmp};
    @open = grep { $_ != $b } @open;
}

END { $_->abort for @open }

sub results_json {
    my ($res, $prov) = @_;
    my %doc = (
        schema => 'streamcts-certify-results/1',
        verdict => $res->{verdict},
        exit_status => $res->{exit_status},
        headline => $res->{headline},
        incomplete => $res->{incomplete},
        suite => {catalog_sha256 => $prov->{suite}{catalog_sha256}, revisions => $prov->{suite}{revisions}},
        date => $prov->{date},
        points => [map { my %r = %$_; delete $r{family}; \%r } @{$res->{points}}],
        programs => $res->{programs},
        mustpass => [map { {case => $_->{case}, status => $_->{status}, points => $_->{points}, ran => $_->{ran},
            why => $_->{why}} } @{$res->{mustpass}}],
    );
    $doc{waivers} = $res->{waivers} if $res->{waivers};
    $doc{baseline} = $res->{baseline} if $res->{baseline};
    return pretty_json(\%doc);
}

# JSON::PP->new->canonical->pretty->encode($data), byte for byte, for plain hashes, arrays, scalars and
# JSON::PP booleans: JSON::PP's own tests (number or string, the escapes, 3 spaces a level), without its
# method call per value, which made results.json of a whole suite's 9,000 points half of a rendering's CPU
# time.  Anything else (another blessed object, a reference to a scalar) is JSON::PP's to encode.
my %esc = ("\n" => '\n', "\r" => '\r', "\t" => '\t', "\f" => '\f', "\b" => '\b', '"' => '\"', "\\" => '\\\\');
sub json_string {
    my ($s) = @_;
    return qq("$s") unless $s =~ /[\x00-\x1f\x22\x5c]/;
    $s =~ s/([\x22\x5c\n\r\t\f\b])/$esc{$1}/g;
    $s =~ s/([\x00-\x08\x0b\x0e-\x1f])/'\\u00' . unpack('H2', $1)/eg;
    return '"' . $s . '"';
}
my %key; # a hash key's JSON, once: a whole suite's results.json writes the same twenty keys 13,000 times
sub json_value {
    my ($v, $pad) = @_;
    my $r = ref $v;
    if (!$r) {
        return 'null' unless defined $v;
        # a number's text has only digits, a point, an exponent and signs: anything else is a string, as JSON::PP
        # finds it (most values of a bundle), without its call
        return json_string($v) if $v =~ /[^0-9.eE+\-]/;
        return JSON::PP::_looks_like_number($v) ? $v : json_string($v);
    }
    my $in = "$pad   ";
    if ($r eq 'HASH') {
        return '{}' unless %$v;
        return "{\n$in" . join(",\n$in", map { ($key{$_} //= json_string($_)) . ' : ' . json_value($v->{$_}, $in) } sort keys %$v) . "\n$pad}";
    }
    if ($r eq 'ARRAY') {
        return '[]' unless @$v;
        return "[\n$in" . join(",\n$in", map { json_value($_, $in) } @$v) . "\n$pad]";
    }
    return $$v == 1 ? 'true' : 'false' if $r eq 'JSON::PP::Boolean';
    die "not plain\n";
}
sub pretty_json {
    my ($data) = @_;
    my $text = eval { json_value($data, '') . "\n" };
    return $text // JSON::PP->new->canonical->pretty->encode($data);
}

sub mustpass {
    my ($res, $cat) = @_;
    my $s = "# streamcts mustpass: every MUST case of this suite (generated/catalog.tsv, made from spec/ at\n"
        . "# build time) and what ran of it, over both APIs, both compile modes and MPS where its rule has them.\n"
        . "# status: passed | failed | waived | skipped (the device lacks what it needs)\n"
        . "# | undecided (its points were undecidable: none passed or failed) | missing (did not run)\n"
        . "# case\tstatus\tpoints ran/planned\tspec\twhy\n";
    for my $e (@{$res->{mustpass}}) {
        $s .= join("\t", $e->{case}, $e->{status}, "$e->{ran}/$e->{points}", $cat->{cases}{$e->{case}}{spec}, $e->{why} // '') . "\n";
    }
    return $s;
}

1;
