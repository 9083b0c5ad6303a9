# certify::EntryPoints - which shared objects answered the driver entry points,
# from the programs' headers (runtime/backend/cu_loader.h, sc_driver_provenance):
#   # entry points by dlsym: R of N: C PATH (version V, build-id H), ...
#   # entry points by cuGetProcAddress: R of N: C PATH (...), ...
#   # entry points by dlsym that PATH answered: cuX, cuY       (one line or more per library but the first)
#   # driver library: libcuda.so.1 is PATH (...); LD_PRELOAD=VALUE
# "by dlsym" is what the driver API backend calls; "by cuGetProcAddress" is the
# way cudart, the runtime API backend, resolves its own (the header asks
# cuGetProcAddress itself; it is not cudart's table).
#
#   my $ep = certify::EntryPoints::collect(\@programs, $layer, $live);
#       {programs => how many ran (printed a header), silent => [paths of those
#        that did not say who answered], by_dlsym / by_cuGetProcAddress =>
#        {resolved => ["R of N", ...], libraries => [{path, version, build_id,
#        sha256 (a live run: the file here), programs, answered => [fewest,
#        most], entry_points => [names, where a header listed them]}, ...]},
#        driver_library => [...], ld_preload => [...], layer => {name,
#        reached_by_dlsym, reached_by_cuGetProcAddress (programs)}, incomplete
#        => [reasons], warnings => [lines]}
#   $layer (--layer NAME) names the library a run certifies: a path, a file
#   name, or a file name's start up to a dot (libvgpu: libvgpu.so,
#   libvgpu.so.1).  A program that ran without NAME answering one entry point
#   by a way tested nothing of NAME through that API: the run is INCOMPLETE.
#   my @facts = certify::EntryPoints::facts($ep);   [label, text] pairs for summary.txt and report.html
package certify::EntryPoints;
use strict;
use warnings;
use Digest::SHA;
use File::Basename qw(basename);

my @WAYS = (['by_dlsym', 'by dlsym', 'driver API'], ['by_cuGetProcAddress', 'by cuGetProcAddress', 'runtime API']);

sub distinct {
    my %seen;
    return [grep { defined && !$seen{$_}++ } @_];
}

# "C PATH (version V, build-id H), ..." -> ([count, path, version, build-id], ...)
sub answerers {
    my ($text) = @_;
    my @a;
    $text =~ s/^\d+ of \d+: //;
    while ($text =~ /(\d+) (.+?) \(((?:version |build-id |no build-id)[^()]*)\)(?:, |$)/g) {  # a path may hold blanks
        my ($n, $path, $attrs) = ($1, $2, $3);
        my ($version) = $attrs =~ /version ([^,]+)/;
        my ($id) = $attrs =~ /build-id ([0-9a-f]+)/;
        push @a, [$n + 0, $path, $version, $id];
    }
    return @a;
}

sub matches {
    my ($name, $path) = @_;
    my $file = basename($path);
    return $path eq $name || $file eq $name || index($file, "$name.") == 0;
}

sub collect {
    my ($progs, $layer, $live) = @_;
    my (%lib, %resolved, %names, @silent, @driver, @preload, %reached);
    my $ran = 0;
    for my $p (grep { !defined $_->{skip_all} && defined $_->{header}{device} } @$progs) {
        $ran++;
        my $h = $p->{header};
        push @silent, $p->{path} unless defined $h->{'entry points by dlsym'};
        for my $w (@WAYS) {
            my ($key, $how) = @$w;
            my $line = $h->{"entry points $how"} // next;
            push @{$resolved{$key}}, $1 if $line =~ /^(\d+ of \d+)/;
            my @a = answerers($line);
            for my $a (@a) {
                my $l = $lib{$key}{$a->[1]} //= {path => $a->[1], version => $a->[2], build_id => $a->[3], programs => 0};
                $l->{programs}++;
                $l->{answered}[0] = $a->[0] if !defined $l->{answered}[0] || $a->[0] < $l->{answered}[0];
                $l->{answered}[1] = $a->[0] if !defined $l->{answered}[1] || $a->[0] > $l->{answered}[1];
            }
            $reached{$key}++ if defined $layer && grep { $_->[0] > 0 && matches($layer, $_->[1]) } @a;
        }
        for my $c (@{$p->{comments}}) {
            next unless $c =~ /^entry points (by dlsym|by cuGetProcAddress) that (.+?) answered: (.*)$/;
            my $key = $1 eq 'by dlsym' ? 'by_dlsym' : 'by_cuGetProcAddress';
            $names{$key}{$2}{$_} = 1 for split /, /, $3;
        }
        if (($h->{'driver library'} // '') =~ /^libcuda\.so\.1 is (.*); LD_PRELOAD=(.*)$/) { push @driver, $1; push @preload, $2 }
    }
    my %ep = (programs => $ran, silent => \@silent, driver_library => distinct(@driver), ld_preload => distinct(@preload),
        incomplete => [], warnings => []);
    my %sha;
    for my $w (@WAYS) {
        my $key = $w->[0];
        my @libs = sort { $b->{answered}[1] <=> $a->{answered}[1] || $a->{path} cmp $b->{path} } values %{$lib{$key} // {}};
        for my $l (@libs) {
            $l->{entry_points} = [sort keys %{$names{$key}{$l->{path}}}] if $names{$key}{$l->{path}};
            next unless $live && -f $l->{path};  # the file this machine's programs mapped
            $l->{sha256} = $sha{$l->{path}} //= eval { Digest::SHA->new(256)->addfile($l->{path}, 'b')->hexdigest };
        }
        $ep{$key} = {resolved => distinct(@{$resolved{$key} // []}), libraries => \@libs};
    }
    check_layer(\%ep, $layer, \%reached) if defined $layer;
    warn_preload(\%ep);
    return \%ep;
}

sub check_layer {
    my ($ep, $layer, $reached) = @_;
    my $ran = $ep->{programs};
    $ep->{layer} = {name => $layer, map { ("reached_$_->[0]" => $reached->{$_->[0]} // 0) } @WAYS};
    return unless $ran;  # nothing ran: the run is incomplete for that already
    my $said = $ran - @{$ep->{silent}};
    if (@{$ep->{silent}}) {
        push @{$ep->{incomplete}}, scalar(@{$ep->{silent}}) . " of $ran programs that ran did not say which libraries "
            . "answered their driver entry points (a suite older than this certify?), so --layer $layer cannot be "
            . "shown reached: e.g. $ep->{silent}[0]";
    }
    return unless $said;
    if (!grep { $reached->{$_->[0]} } @WAYS) {
        push @{$ep->{incomplete}}, "the layer $layer was never reached: it answered no driver entry point in any of "
            . "$said programs (" . join('; ', map { "$_->[1]: " . who($ep->{$_->[0]}) } @WAYS) . ")";
        return;
    }
    for my $w (@WAYS) {
        my ($key, $how, $api) = @$w;
        my $missed = $said - ($reached->{$key} // 0);
        push @{$ep->{incomplete}}, "the layer $layer answered no entry point $how (how the $api resolves them) in $missed of $said "
            . "programs, so their $api points tested " . who($ep->{$key}) . " instead" if $missed;
    }
}

sub who {
    my ($way) = @_;
    my @l = @{$way->{libraries}};
    return 'nothing resolved' unless @l;
    return join(', ', map { basename($_->{path}) } @l[0 .. ($#l < 2 ? $#l : 2)]) . (@l > 3 ? ', ...' : '');
}

# LD_PRELOAD named a library that answered nothing: a hook the suite never reached (it does not
# interpose dlsym on libcuda.so.1's handle, nor cuGetProcAddress).
sub warn_preload {
    my ($ep) = @_;
    my %answered = map { basename($_->{path}) => 1 } map { @{$ep->{$_->[0]}{libraries}} } @WAYS;
    for my $v (grep { $_ ne '(unset)' } @{$ep->{ld_preload}}) {
        for my $lib (grep {length} split /[ :]+/, $v) {
            next if $answered{basename($lib)};
            push @{$ep->{warnings}}, "LD_PRELOAD names $lib, which answered no driver entry point: the suite never "
                . "reached it (the programs resolve libcuda.so.1's entry points with dlsym on its handle, which a "
                . "preloaded library does not interpose unless it hooks dlsym or cuGetProcAddress)";
        }
    }
}

# [label, text] pairs for summary.txt and report.html.
sub facts {
    my ($ep) = @_;
    my @f;
    for my $w (@WAYS) {
        my ($key, $how) = @$w;
        my @l = @{$ep->{$key}{libraries}};
        next unless @l;
        my $n = sub { my $a = $_[0]{answered}; $a->[0] == $a->[1] ? $a->[0] : "$a->[0]-$a->[1]" };
        push @f, ["entry points $how", join(', ', map { $n->($_) . " $_->{path}" . ($_->{programs} < $ep->{programs}
            ? " (in $_->{programs} of $ep->{programs} programs)" : '') } @l)];
    }
    push @f, ['entry points', 'no program said which libraries answered them'] if !@f && $ep->{programs};
    push @f, ['driver library', 'libcuda.so.1 is ' . join(' | ', @{$ep->{driver_library}})] if @{$ep->{driver_library}};
    push @f, ['LD_PRELOAD', join(' | ', @{$ep->{ld_preload}})] if @{$ep->{ld_preload}};
    if (my $l = $ep->{layer}) {
        push @f, ['layer', "$l->{name}: answered entry points by dlsym in $l->{reached_by_dlsym}, by cuGetProcAddress "
            . "in $l->{reached_by_cuGetProcAddress} of $ep->{programs} programs that ran"];
    }
    push @f, ['WARNING', $_] for @{$ep->{warnings}};
    return @f;
}

1;
