# certify::Provenance - what was tested, for provenance.json: the GPU, driver,
# toolkit, suite build, machine, environment and driver libraries that the
# programs' '#' headers name, and apart from them the renderer: the machine,
# checkout and environment of tools/certify itself, which with --from is not
# the machine that ran the programs.
#
#   my $prov = certify::Provenance::collect($root, $cat, \@programs, \%how);
#   %how: command => [argv], from => the TAP log (undef for a live run),
#         gpu_count => number or undef, date => ISO 8601 UTC,
#         layer => the --layer NAME or undef (certify::EntryPoints).
# Fields read from the headers are lists of the distinct values the programs
# printed (one value when the run was uniform); suite.program_digests maps
# each program to the digest of its generated C.  A live run records the
# checkout's commit and whether its tracked files differed from it (dirty).
package certify::Provenance;
use strict;
use warnings;
use POSIX qw(uname);
use JSON::PP;
use certify::EntryPoints;

sub distinct {
    my %seen;
    return [grep { defined && !$seen{$_}++ } @_];
}

# The checkout at $root: {commit, describe, dirty}, or undef outside a git checkout.
sub checkout {
    my ($root) = @_;
    my $commit = `git -C "$root" rev-parse HEAD 2>/dev/null` // '';
    chomp $commit;
    return undef unless $? == 0 && $commit =~ /^[0-9a-f]{40}$/;
    my $status = `git -C "$root" status --porcelain --untracked-files=no 2>/dev/null`;
    my $clean = $? == 0 && ($status // '') eq '';
    my $describe = `git -C "$root" describe --always --dirty 2>/dev/null` // '';
    chomp $describe;
    return {commit => $commit, describe => $describe || undef, dirty => $clean ? JSON::PP::false : JSON::PP::true};
}

sub collect {
    my ($root, $cat, $progs, $how) = @_;
    my (@name, @uuid, @cc, @drv, @cuda, @cudart, @rev, @rt, @prog, @window, %env, @machine, @kernel);
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
        while (($h->{'env set'} // '') =~ /(\w+)=(\S*)/g) { push @{$env{$1}}, $2 }  # STREAMCTS_*, CUDA_MPS_* set
        if (($h->{machine} // '') =~ /^(.*?), (.*)$/) { push @machine, $1; push @kernel, $2 }
        push @{$env{LD_PRELOAD}}, $1 if ($h->{'driver library'} // '') =~ /; LD_PRELOAD=(.*)$/;
    }
    my %knobs = map { $_ => $ENV{$_} } grep { /^(CUDA_DEVICE_MAX_CONNECTIONS|CUDA_LAUNCH_BLOCKING|CUDA_VISIBLE_DEVICES|CUDA_MPS_\w+|STREAMCTS_\w+)$/ } keys %ENV;
    my @mps = distinct(map { $_->{mps} ? 'on' : 'off' } grep { !defined $_->{skip_all} } @$progs)->@*;
    my $nvcc = ($ENV{CUDA_HOME} // '/usr/local/cuda') . '/bin/nvcc';
    my $nvcc_version = -x $nvcc ? (`"$nvcc" --version 2>/dev/null` =~ /release (\S+?),/ ? $1 : undef) : undef;
    my @u = uname();
    my $here = {name => $u[1], kernel => "$u[0] $u[2] $u[4]"};
    my $live = !defined $how->{from};
    my $co = checkout($root);
    # the machine that ran the programs: their headers say; a live run ran them here
    my $host = @machine ? {name => join(' | ', @{distinct(@machine)}), kernel => join(' | ', @{distinct(@kernel)}),
            names => distinct(@machine), kernels => distinct(@kernel), from => "the programs' headers"}
        : $live ? {%$here, names => [$here->{name}], kernels => [$here->{kernel}], from => 'this machine (it ran the programs)'}
        : {name => 'unknown', kernel => 'unknown', names => [], kernels => [],
            from => "unknown: the log's programs do not name their machine (a suite before the '# machine:' header)"};
    return {
        schema => 'streamcts-certify-provenance/2',
        date => $how->{date},
        command => $how->{command},
        from_log => $how->{from},
        gpu => {names => distinct(@name), uuids => distinct(@uuid), compute_capabilities => distinct(@cc),
            count => $how->{gpu_count}},
        driver => {versions => distinct(@drv), cuda_versions => distinct(@cuda)},
        entry_points => certify::EntryPoints::collect($progs, $how->{layer}, $live),
        toolkit => {cudart => distinct(@cudart), $live ? (nvcc_here => $nvcc_version) : ()},
        suite => {revisions => distinct(@rev), runtime_digests => distinct(@rt),
            program_digests => {map { @$_ } @prog}, catalog_sha256 => $cat->{digest}, $live ? (checkout => $co) : ()},
        settings => distinct(@window),
        environment => {in_programs => {map { $_ => distinct(@{$env{$_}}) } sort keys %env},
            $live ? (certify => \%knobs) : ()},
        mps => @mps == 2 ? 'both' : $mps[0] // 'none ran',
        host => $host,
        # who wrote this bundle: with --from not the machine, checkout or environment that ran the programs
        renderer => {%$here, role => $live ? 'ran the programs and wrote the bundle' : "rendered the log $how->{from}",
            checkout => $co, $live ? () : (nvcc => $nvcc_version, environment => \%knobs)},
    };
}

1;
