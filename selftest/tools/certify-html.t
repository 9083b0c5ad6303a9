#!/bin/bash
# tools/certify's report.html in a real browser: headless Chromium loads the
# report of a run with one MUST failure (certify/full-log.pl), with scripts
# and the network off, takes a screenshot and dumps the DOM it built; the
# screenshot must show the tables (their header grey) and the failure's
# timeline (its op bars' blue, the deciding observation's red).  Skips,
# saying so, where Chromium is not installed (Debian: apt-get install chromium).
cd "$(dirname "$0")/../.." || exit 1
browser=$(command -v chromium || command -v chromium-browser)
echo "TAP version 13"
if [ -z "$browser" ]; then
    echo "1..0 # SKIP no Chromium here (apt-get install chromium): the report is not checked in a browser"
    exit 0
fi
echo "1..4"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -10 | sed 's/^/# /'; }
f1=fifo.null_stream.kernel.kernel.driver@legacy
selftest/tools/certify/full-log.pl +tap/fifo/ $f1 >"$tmp/log"
tools/certify --from "$tmp/log" -o "$tmp/b" >/dev/null 2>&1
run() {
    timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-javascript --no-first-run \
        --disable-extensions --user-data-dir="$tmp/profile" --window-size=1000,1400 --hide-scrollbars "$@" \
        "file://$tmp/b/report.html" 2>>"$tmp/browser.err"
}
run --screenshot="$tmp/shot.png" >/dev/null
if [ -s "$tmp/shot.png" ]; then ok "Chromium rendered report.html and took a screenshot"
else nok "Chromium took no screenshot" "$(tail -5 "$tmp/browser.err")"; fi
dom=$(run --dump-dom)
svgs=$(grep -o '<svg ' <<<"$dom" | wc -l); tables=$(grep -o '<table>' <<<"$dom" | wc -l)
if [ "$svgs" -eq 1 ] && [ "$tables" -ge 3 ] && grep -q "fail (MUST): $f1" <<<"$dom"; then
    ok "the DOM Chromium built holds the failure's SVG timeline and $tables tables"
else nok "the DOM holds $svgs SVGs and $tables tables" "$(tail -5 "$tmp/browser.err")"; fi
# count the pixels of three colours of the page in the screenshot (PNG: 8-bit RGB or RGBA)
counts=$(perl -MCompress::Zlib -e '
    local $/; open my $fh, "<:raw", $ARGV[0] or die; my $png = <$fh>;
    my ($w, $h, $depth, $type, $idat) = (0, 0, 0, 0, "");
    for (my $i = 8; $i < length $png;) {
        my ($len, $t) = unpack "N a4", substr($png, $i, 8);
        my $data = substr($png, $i + 8, $len);
        ($w, $h, $depth, $type) = unpack "N N C C", $data if $t eq "IHDR";
        $idat .= $data if $t eq "IDAT";
        $i += 12 + $len;
    }
    die "not 8-bit RGB(A)\n" unless $depth == 8 && ($type == 2 || $type == 6);
    my $bpp = $type == 6 ? 4 : 3;
    my $raw = uncompress($idat) // die "bad IDAT\n";
    my ($stride, @prev, %n) = ($w * $bpp);
    my %want = ("238,238,238" => "header", "158,202,225" => "bar", "198,40,40" => "red");
    @prev = (0) x $stride;
    for my $y (0 .. $h - 1) {
        my $f = ord substr($raw, $y * ($stride + 1), 1);
        my @c = unpack "C*", substr($raw, $y * ($stride + 1) + 1, $stride);
        for my $x (0 .. $stride - 1) {
            my ($a, $b, $d) = ($x >= $bpp ? $c[$x - $bpp] : 0, $prev[$x], $x >= $bpp ? $prev[$x - $bpp] : 0);
            my $p = $f == 1 ? $a : $f == 2 ? $b : $f == 3 ? int(($a + $b) / 2) : $f == 4 ? do {
                my $e = $a + $b - $d; my ($pa, $pb, $pc) = (abs($e - $a), abs($e - $b), abs($e - $d));
                $pa <= $pb && $pa <= $pc ? $a : $pb <= $pc ? $b : $d } : 0;
            $c[$x] = ($c[$x] + $p) & 255;
        }
        for (my $x = 0; $x < $stride; $x += $bpp) { my $k = "$c[$x],$c[$x+1],$c[$x+2]"; $n{$want{$k}}++ if $want{$k} }
        @prev = @c;
    }
    print join(" ", map { $n{$_} // 0 } qw(header bar red)), "\n";
' "$tmp/shot.png" 2>&1)
read -r grey blue red <<<"$counts"
if [ "${grey:-0}" -gt 1000 ] 2>/dev/null; then ok "the screenshot shows the tables: $grey pixels of their header grey"
else nok "the screenshot shows no table header grey ($counts)"; fi
if [ "${blue:-0}" -gt 200 ] 2>/dev/null && [ "${red:-0}" -gt 20 ]; then
    ok "the screenshot shows the timeline: $blue pixels of its op bars' blue, $red of the red of the verdict and the deciding observation"
else nok "the screenshot shows no timeline ($counts)"; fi
