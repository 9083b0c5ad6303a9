# certify::Outcomes - the outcome table, runtime/result/outcomes.def (its comment
# says what each column means and how a point line is classified), read at
# run time from the repository this file is in.
#
#   certify::Outcomes::rows()         the rows in order: {id, name, tap,
#                                     directive, reason, severity, fails}
#   certify::Outcomes::names()        the outcome names, in the table's order
#   certify::Outcomes::classify($ok, $directive, $reason)
#                                     the outcome of a point line: ok 0|1, its
#                                     directive (TODO, SKIP or '') and reason
#   certify::Outcomes::fails($name)   1: the outcome fails a certification
#   certify::Outcomes::levels()       the level table, runtime/program/levels.def:
#                                     {id, name, violated (an outcome's name),
#                                     meaning}, in order
#   certify::Outcomes::levels_to($outcome)
#                                     the names of the levels whose points that did
#                                     not hold end as $outcome ('fail': MUST)
#   certify::Outcomes::level_fails($level)
#                                     1: a point of that level that did not hold
#                                     fails a certification
# Dies, naming the file and line, when the table cannot be read or a row does
# not match the strict pattern.
package certify::Outcomes;
use strict;
use warnings;
use File::Basename ();
use File::Spec;

our $TABLE = File::Spec->catfile(File::Basename::dirname(File::Spec->rel2abs(__FILE__)),
    File::Spec->updir, File::Spec->updir, File::Spec->updir, 'runtime', 'result', 'outcomes.def');
our $LEVELS = File::Spec->catfile(File::Basename::dirname(File::Spec->rel2abs(__FILE__)),
    File::Spec->updir, File::Spec->updir, File::Spec->updir, 'runtime', 'program', 'levels.def');
my (@rows, @levels);

sub rows {
    return @rows if @rows;
    open my $fh, '<', $TABLE or die "$TABLE: cannot read the outcome table: $!\n";
    my (@r, %seen);
    while (my $l = <$fh>) {
        next unless $l =~ /^SC_POINT_OUTCOME\b/;
        $l =~ /^SC_POINT_OUTCOME\(([A-Z][A-Z_]*), "([a-z][a-z-]*)", "(ok|not ok|)", "(TODO|SKIP|)", "((?:[A-Za-z][A-Za-z-]*(?:\|[A-Za-z][A-Za-z-]*)*)?)", "([a-z]*)", ([01])\)\s*$/
            or die "$TABLE:$.: not a row of the outcome table: $l";
        die "$TABLE:$.: outcome $2 twice\n" if $seen{$2}++;
        push @r, {id => $1, name => $2, tap => $3, directive => $4, reason => $5, severity => $6, fails => $7 + 0};
    }
    close $fh;
    die "$TABLE: no rows in the outcome table\n" unless @r;
    @rows = @r;
    return @rows;
}

sub names { return map { $_->{name} } rows() }

sub classify {
    my ($ok, $directive, $reason) = @_;
    my $tap = $ok ? 'ok' : 'not ok';
    for my $r (rows()) {
        next unless $r->{tap} eq $tap;
        next if $r->{directive} ne '' && uc($directive // '') ne $r->{directive};
        next if $r->{reason} ne '' && ($reason // '') !~ /^(?:$r->{reason})\b/;
        return $r->{name};
    }
    die "$TABLE: no row of the outcome table takes a point that is '$tap'\n";
}

sub fails {
    my ($name) = @_;
    my ($r) = grep { $_->{name} eq $name } rows();
    die "$TABLE: no outcome '$name' in the outcome table\n" unless $r;
    return $r->{fails};
}

sub levels {
    return @levels if @levels;
    my %by_id = map { $_->{id} => $_->{name} } rows();
    open my $fh, '<', $LEVELS or die "$LEVELS: cannot read the level table: $!\n";
    my (@l, %seen);
    while (my $l = <$fh>) {
        next unless $l =~ /^SC_RULE_LEVEL\b/;
        $l =~ /^SC_RULE_LEVEL\(([A-Z][A-Z_]*), "([A-Z][A-Z-]*)", ([A-Z][A-Z_]*), "([^"]+)"\)\s*$/
            or die "$LEVELS:$.: not a row of the level table: $l";
        die "$LEVELS:$.: level $2 twice\n" if $seen{$2}++;
        die "$LEVELS:$.: $3 is no outcome of $TABLE\n" unless defined $by_id{$3};
        push @l, {id => $1, name => $2, violated => $by_id{$3}, meaning => $4};
    }
    close $fh;
    die "$LEVELS: no rows in the level table\n" unless @l;
    @levels = @l;
    return @levels;
}

sub levels_to {
    my ($outcome) = @_;
    return map { $_->{name} } grep { $_->{violated} eq $outcome } levels();
}

sub level_fails {
    my ($level) = @_;
    my ($l) = grep { $_->{name} eq $level } levels();
    die "$LEVELS: no level '$level' in the level table\n" unless $l;
    return fails($l->{violated});
}

1;
