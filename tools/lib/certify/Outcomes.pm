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
# Dies, naming the file and line, when the table cannot be read or a row does
# not match the strict pattern.
package certify::Outcomes;
use strict;
use warnings;
use File::Basename ();
use File::Spec;

our $TABLE = File::Spec->catfile(File::Basename::dirname(File::Spec->rel2abs(__FILE__)),
    File::Spec->updir, File::Spec->updir, File::Spec->updir, 'runtime', 'result', 'outcomes.def');
my @rows;

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

1;
