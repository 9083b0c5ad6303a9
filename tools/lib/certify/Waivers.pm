# certify::Waivers - the --waivers file of tools/certify: known MUST
# failures a vendor declares, each with a reason, a ticket and an expiry.
#
#   my $w = certify::Waivers::load($file, $today);   # $today: YYYY-MM-DD
#   certify::Waivers::apply($w, $res);
# A line is `CASE-ID-GLOB  REASON...  TICKET-URL  EXPIRY-DATE` (fields apart
# by blanks; the reason may hold blanks); '#' starts a comment line.  The
# glob (* ? [...]) is matched against a point's case id and its point name.
# load dies "FILE:LINE: ..." on a malformed line or an expired waiver; apply
# dies "FILE:LINE: ..." on a waiver that matches no point of the run.  A
# matching MUST failure becomes outcome "waived" with the waiver attached.
package certify::Waivers;
use strict;
use warnings;

sub glob_re {
    my ($g) = @_;
    my $re = join '', map { $_ eq '*' ? '.*' : $_ eq '?' ? '.' : /^\[/ ? $_ : quotemeta } $g =~ /(\[[^\]]+\]|.)/g;
    return qr/^$re$/;
}

sub load {
    my ($file, $today) = @_;
    open my $fh, '<', $file or die "$file: cannot read the waivers: $!\n";
    my @w;
    while (my $l = <$fh>) {
        chomp $l;
        next if $l =~ /^\s*(#|$)/;
        my $at = "$file:$.";
        my @f = split ' ', $l;
        die "$at: a waiver is `CASE-ID-GLOB  REASON  TICKET-URL  EXPIRY-DATE` (4 fields or more), this line has "
            . scalar(@f) . "\n" if @f < 4;
        my ($glob, $date, $url) = (shift @f, pop @f, pop @f);
        my $reason = join ' ', @f;
        die "$at: '$glob': a case id glob holds letters, digits, '_', '.', '*', '?' and [...] only\n"
            unless $glob =~ /^[\w.*?\[\]-]+$/;
        die "$at: '$url': the ticket must be a URL (scheme://...)\n" unless $url =~ m{^[a-z][a-z0-9+.-]*://\S+$}i;
        die "$at: '$date': the expiry date must be YYYY-MM-DD\n"
            unless $date =~ /^(\d{4})-(\d\d)-(\d\d)$/ && $2 >= 1 && $2 <= 12 && $3 >= 1 && $3 <= 31;
        die "$at: the waiver of '$glob' expired on $date (today is $today): renew it or drop it\n" if $date lt $today;
        push @w, {glob => $glob, re => glob_re($glob), reason => $reason, ticket => $url, expiry => $date,
            at => $at, matched => 0, waived => 0};
    }
    close $fh;
    return \@w;
}

sub apply {
    my ($w, $res) = @_;
    for my $pt (@{$res->{points}}) {
        for my $v (@$w) {
            next unless (defined $pt->{case} && $pt->{case} =~ $v->{re}) || $pt->{point} =~ $v->{re};
            $v->{matched}++;
            next unless $pt->{outcome} eq 'fail' && $pt->{case};
            $pt->{outcome} = 'waived';
            $pt->{waiver} = {glob => $v->{glob}, reason => $v->{reason}, ticket => $v->{ticket},
                expiry => $v->{expiry}, at => $v->{at}};
            $v->{waived}++;
            last;
        }
    }
    for my $v (@$w) {
        die "$v->{at}: the waiver '$v->{glob}' matches no point of this run: a typo, or a case the suite no longer has\n"
            unless $v->{matched};
    }
    $res->{waivers} = [map { my %c = %$_; delete $c{re}; \%c } @$w];
}

1;
