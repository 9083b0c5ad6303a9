#!/usr/bin/perl
# full-log.pl [+PREFIX...] [-PREFIX...] [FAIL-POINT@MODE...] - prints the verbose prove log of a whole
# suite run in which every case point and control the catalog plans passes
# (generated/rules.ninja's programs, generated/catalog.tsv's cases), for
# selftest/tools/certify.t; each FAIL-POINT@MODE given (e.g.
# fifo.null_stream.kernel.driver@legacy) is reported `not ok` instead, as a
# MUST failure with a YAML block.  Only programs whose path starts with a
# +PREFIX given (+tap/fifo/) are in it, when one is given, and none whose
# path starts with a -PREFIX (-tap/thread/).  Its own small reading of the two files:
# certify's is what the test checks.
use strict;
use warnings;
my @omit = map { substr $_, 1 } grep {/^-/} @ARGV;
my @only = map { substr $_, 1 } grep {/^\+/} @ARGV;
my %fail = map { $_ => 1 } grep { !/^[-+]/ } @ARGV;
my %cases;
open my $cat, '<', 'generated/catalog.tsv' or die "generated/catalog.tsv: $!\n";
<$cat>;
while (<$cat>) {
    chomp;
    my ($case, $rule, $level, $modes, $apis) = split /\t/;
    push @{$cases{$rule}}, [$case, $level, {map { $_ => 1 } split /,/, $modes}, [split /,/, $apis]];
}
open my $ninja, '<', 'generated/rules.ninja' or die "generated/rules.ninja: $!\n";
my @progs = grep { my $p = $_; !grep({ index($p, $_) == 0 } @omit) && (!@only || grep { index($p, $_) == 0 } @only) } sort map { /^build (tap\/\S+\.t):/ ? $1 : () } <$ninja>;
for my $path (@progs) {
    my $mode = $path =~ /\.ptds(\.mps)?\.t$/ ? 'per-thread' : 'legacy';
    my $mps = $path =~ /\.mps\.t$/ ? '.mps' : '';
    (my $rule = $path) =~ s{^tap/}{};
    $rule =~ s/(\.ptds)?(\.mps)?\.t$//;
    $rule =~ s{/}{.}g;
    my @points;
    for my $c (@{$cases{$rule}}) {
        next unless $c->[2]{$mode};
        for my $api (@{$c->[3]}) { push @points, ["$c->[0].$api", $c->[1], $c->[0], $api], ["$c->[0].$api.control", $c->[1], $c->[0], $api] }
    }
    print "[12:00:00] $path .. \nTAP version 13\n# streamcts $rule (fixture)\n";
    print "# device: NVIDIA Fixture GPU, GPU-00000000-0000-0000-0000-000000000000, compute capability 9.0\n";
    print "# driver: CUDA 13.0 (NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.00.00  Release Build  (fixture)  ); runtime: cudart 13.0 static; compile mode: $mode\n";
    print "# env: CUDA_DEVICE_MAX_CONNECTIONS=(unset) CUDA_LAUNCH_BLOCKING=(unset) CUDA_VISIBLE_DEVICES=(unset)\n";
    print "# window 50 ms, deadline 10000 ms, repeat 1, attempts 3; revision fixture\n1.." . scalar(@points) . "\n";
    my ($n, $failed) = (0, 0);
    for my $p (@points) {
        $n++;
        if (!$fail{"$p->[0]\@$mode$mps"}) { print "ok $n - $p->[0]\n"; next }
        $failed = 1;
        print "not ok $n - $p->[0]\n  ---\n  message: \"B completed while A was still pending (held by its gate)\"\n",
            "  severity: \"fail\"\n  outcome: \"violated\"\n  level: \"$p->[1]\"\n  case: \"$p->[2]\"\n  api: \"$p->[3]\"\n",
            "  timeline:\n    - \"    0.100 ms  issued op1 (gate on s): returned after 0.020 ms\"\n",
            "    - \"    0.200 ms  issued A (kernel on s): returned after 0.010 ms\"\n",
            "    - \"    0.300 ms  issued B (memset on t): returned after 0.010 ms\"\n",
            "    - \"    0.350 ms  observed B complete (gates closed)\"\n",
            "    - \"    0.360 ms  gates released: verdict decided\"\n",
            "    - \"    0.500 ms  observed op1 complete\"\n    - \"    0.510 ms  observed A complete\"\n",
            "    - \"    0.600 ms  %globaltimer op1: start +0.000 us, end +300.000 us\"\n",
            "    - \"    0.610 ms  %globaltimer A: start +310.000 us, end +311.000 us\"\n",
            "    - \"    0.620 ms  %globaltimer B: start +150.000 us, end +151.000 us\"\n  ...\n";
    }
    print $failed ? "Failed 1/$n subtests \n" : "ok       10 ms ( 0.00 usr  0.00 sys +  0.00 cusr  0.00 csys =  0.00 CPU)\n";
}
print "[12:00:01]\nAll tests successful.\nFiles=" . scalar(@progs) . ", Tests=0,  1 wallclock secs\nResult: PASS\n";
