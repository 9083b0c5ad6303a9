# certify::Provenance - what was tested, for provenance.json: the GPU, driver,
# toolkit and suite build that the programs' '#' headers name, the host that
# ran tools/certify, the environment knobs in force and the command line.
#
#   my $prov = certify::Provenance::collect($root, $cat, \@programs, \%how);
#   %how: command => [argv], from => the TAP log (undef for a live run),
#         gpu_count => number or undef, date => ISO 8601 UTC.
# Fields read from the headers are lists of the distinct values the programs
# printed (one value when the run was uniform); suite.program_digests maps
# each program to the digest of its generated C.
package certify::Provenance;
use strict;
use warnings;
use POSIX qw(uname);

sub distinct {
    my %seen;
    return [grep { defined && !$seen{$_}++ } @_];
}

sub collect {
    my ($root, $cat, $progs, $how) = @_;
    my (@name, @uuid, @cc, @drv, @cuda, @cudart, @rev, @rt, @prog, @window, %env);
    for my $p (@$progs) {
        my $h = $p->{header};
        if (($h->{device} // '') =~ /^(.*), ([^,]+), compute capability (\S+)$/) { push @name, $1; push @uuid, $2; push @cc, $3 }
        if (my $d = $h->{driver}) {
            push @cuda, $1 if $d =~ /^CUDA (\S+)/;
            push @drv, $d =~ /\b(\d+\.\d+(?:\.\d+)?)\s+Release Build/ ? $1 : $d =~ /^CUDA \S+ \((.*?)\);/ ? $1 : undef;
            push @cudart, $1 if $d =~ /runtime: (cudart [^;]+)/;
        }
        for my $c (@{$p->{comments}}) {
            next unless $c =~ /^window (.*?); revision (.*)$/;
            push @window, $1;
            push @rev, $2;
        }
        if (($h->{build} // '') =~ /^program (\w+) .*runtime and kernels (\w+)/) { push @prog, [$p->{path}, $1]; push @rt, $2 }
        while (($h->{env} // '') =~ /(\w+)=(\S+)/g) { push @{$env{$1}}, $2 }
    }
    my %knobs = map { $_ => $ENV{$_} } grep { /^(CUDA_DEVICE_MAX_CONNECTIONS|CUDA_LAUNCH_BLOCKING|CUDA_VISIBLE_DEVICES|CUDA_MPS_\w+|STREAMCTS_\w+)$/ } keys %ENV;
    my @mps = distinct(map { $_->{mps} ? 'on' : 'off' } grep { !defined $_->{skip_all} } @$progs)->@*;
    my $nvcc = ($ENV{CUDA_HOME} // '/usr/local/cuda') . '/bin/nvcc';
    my $nvcc_version = -x $nvcc ? (`"$nvcc" --version 2>/dev/null` =~ /release (\S+?),/ ? $1 : undef) : undef;
    my $checkout = `git -C "$root" describe --always --dirty 2>/dev/null` // '';
    chomp $checkout;
    my @u = uname();
    return {
        schema => 'streamcts-certify-provenance/1',
        date => $how->{date},
        command => $how->{command},
        from_log => $how->{from},
        gpu => {names => distinct(@name), uuids => distinct(@uuid), compute_capabilities => distinct(@cc),
            count => $how->{gpu_count}},
        driver => {versions => distinct(@drv), cuda_versions => distinct(@cuda)},
        toolkit => {cudart => distinct(@cudart), nvcc_here => $nvcc_version},
        suite => {revisions => distinct(@rev), runtime_digests => distinct(@rt),
            program_digests => {map { @$_ } @prog}, catalog_sha256 => $cat->{digest},
            checkout_here => $checkout || undef},
        settings => distinct(@window),
        environment => {in_programs => {map { $_ => distinct(@{$env{$_}}) } sort keys %env}, certify => \%knobs},
        mps => @mps == 2 ? 'both' : $mps[0] // 'none ran',
        host => {name => $u[1], kernel => "$u[0] $u[2] $u[4]"},
    };
}

1;
