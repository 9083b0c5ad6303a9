#!/usr/bin/perl
# json-schema.pl SCHEMA JSON - validates the JSON file against the JSON Schema
# for selftest/tools/certify.t: prints each violation as "PATH: what" and
# exits 1 when there is one, 0 when the file is valid, 2 when a file cannot
# be read.  It knows the subset docs/results.schema.json uses: type (one or a
# list), const, enum, properties, required, additionalProperties (false),
# items, minItems, minLength, pattern, minimum and $ref to "#/$defs/NAME";
# any other keyword is reported as unsupported, so the schema cannot silently
# say more than is checked.
use strict;
use warnings;
use JSON::PP;
use B;

my %known = map { $_ => 1 } qw($schema $id title type const enum properties required additionalProperties items
    minItems minLength pattern minimum $ref $defs);
my ($schema_file, $file) = @ARGV;
die "usage: json-schema.pl SCHEMA JSON\n" unless defined $file;
# JSON::XS where it is (tools/deps.sh --self-test installs it): it reads a whole suite's results.json in a
# quarter of a second, JSON::PP in four
my $reader = eval { require JSON::XS; JSON::XS->new } // JSON::PP->new;
sub load { my ($f) = @_; open my $fh, '<', $f or do { print STDERR "$f: $!\n"; exit 2 }; local $/; $reader->decode(<$fh>) }
my $schema = load($schema_file);
my $doc = load($file);
my @bad;

sub type_of {
    my ($v) = @_;
    return 'null' unless defined $v;
    return 'boolean' if JSON::PP::is_bool($v);
    return ref $v eq 'HASH' ? 'object' : 'array' if ref $v;
    my $f = B::svref_2object(\$v)->FLAGS;
    return 'string' if $f & B::SVp_POK;
    return ($f & B::SVp_IOK) || $v == int $v ? 'integer' : 'number';
}

my $canon = JSON::PP->new->canonical->allow_nonref;
sub same {
    my ($x, $y) = @_;
    return $canon->encode($x) eq $canon->encode($y) if ref $x || ref $y;
    return !defined $x && !defined $y if !defined $x || !defined $y;
    return type_of($x) eq type_of($y) && $x eq $y;
}

sub check {
    my ($s, $v, $path) = @_;
    for my $k (keys %$s) { push @bad, "schema keyword '$k' is not supported by this validator" unless $known{$k} }
    if (my $ref = $s->{'$ref'}) {
        my ($name) = $ref =~ m{^#/\$defs/(\w+)$} or return push @bad, "$path: unsupported \$ref $ref";
        my $def = $schema->{'$defs'}{$name} or return push @bad, "$path: no \$defs/$name";
        return check($def, $v, $path);
    }
    my $t = type_of($v);
    if (my $want = $s->{type}) {
        my @w = ref $want ? @$want : ($want);
        return push @bad, "$path: a $t, not " . join(' or ', @w) unless grep { $_ eq $t || ($_ eq 'number' && $t eq 'integer') } @w;
    }
    push @bad, "$path: not the constant " . encode_json([$s->{const}]) if exists $s->{const} && !same($s->{const}, $v);
    push @bad, "$path: " . $canon->encode($v) . " is not one of " . $canon->encode($s->{enum})
        if $s->{enum} && !grep { same($_, $v) } @{$s->{enum}};
    if ($t eq 'object') {
        for my $r (@{$s->{required} || []}) { push @bad, "$path: lacks the required \"$r\"" unless exists $v->{$r} }
        for my $k (sort keys %$v) {
            if (my $ps = ($s->{properties} || {})->{$k}) { check($ps, $v->{$k}, "$path.$k") }
            elsif (exists $s->{additionalProperties} && !$s->{additionalProperties}) { push @bad, "$path: \"$k\" is not allowed" }
        }
    } elsif ($t eq 'array') {
        push @bad, "$path: fewer than $s->{minItems} items" if defined $s->{minItems} && @$v < $s->{minItems};
        if ($s->{items}) { check($s->{items}, $v->[$_], "$path\[$_]") for 0 .. $#$v }
    } elsif ($t eq 'string') {
        push @bad, "$path: shorter than $s->{minLength}" if defined $s->{minLength} && length $v < $s->{minLength};
        push @bad, "$path: \"$v\" does not match /$s->{pattern}/" if defined $s->{pattern} && $v !~ /$s->{pattern}/;
    } elsif ($t eq 'integer' || $t eq 'number') {
        push @bad, "$path: $v is below $s->{minimum}" if defined $s->{minimum} && $v < $s->{minimum};
    }
}

check($schema, $doc, '$');
print "$_\n" for @bad;
exit(@bad ? 1 : 0);
