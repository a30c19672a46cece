#!/bin/sh
# The deliverable report: an engagement with a loss comparison, a dump comparison and a
# profile (the fixtures of test_compare / test_dump_pt / test_profile_scale). The HTML
# has the A4 print rules (page size, page numbers in the margin box, headings kept with
# their content, rows and figures not split), the CJK font stack, a cover (client,
# engagement, date, ferry version, audit chain head), a table of contents whose links
# all land, and five inline SVG figures that parse as XML (the dump figure marks the
# first diverging layer); no script, no external reference. Markdown and HTML carry the
# same sections. `--format pdf` prints the Chinese report through headless Chromium:
# A4 pages, numbered, every font embedded, a Noto CJK font in it, no missing-glyph box
# (glyph 0) drawn anywhere, and pdftotext gives the Chinese headings back. Chromium's PDF
# backend embeds CFF-flavoured OpenType fonts (Noto CJK) as Type 3 fonts of real glyph
# outlines, which pdffonts lists without a name: the face is read from their descriptor.
# Without Chromium: one line and exit 3.
. "$(dirname "$0")/lib.sh"

fx="$top/tests/fixtures"
p="$work/resnet"
cp -R "$top/examples/resnet-ddp" "$p"
"$FERRY" init "$p" --client "Acme Corp" --engagement ACME-7 >/dev/null 2>&1 || fail "init"
"$FERRY" -C "$p" check >/dev/null 2>&1
"$FERRY" -C "$p" ingest loss-log "$fx/loss/gpu_megatron.log" --label gpu >/dev/null 2>&1 || fail "ingest gpu loss"
"$FERRY" -C "$p" ingest loss-log "$fx/loss/npu_megatron.log" --label npu >/dev/null 2>&1 || fail "ingest npu loss"
expect_exit 0 "compare loss gpu npu" -- "$FERRY" -C "$p" compare loss gpu npu
expect_exit 1 "compare dump (the fixture diverges)" -- "$FERRY" -C "$p" compare dump "$fx/dump/gpu_dump" "$fx/dump/npu_dump"
expect_exit 0 "ingest a profile" -- "$FERRY" -C "$p" ingest profile "$fx/profile/kernel_details.csv"

for l in en zh; do
	for f in md html json; do
		expect_exit 0 "report --format $f --lang $l" -- "$FERRY" -C "$p" report --format "$f" --lang "$l" --output "$work/$l.$f"
	done
done

# --- the HTML: print rules, fonts, cover, contents, figures -----------------------------------------
if python3 - "$work/en.html" "$work/zh.html" "$work/en.json" <<'PY'; then ok "html: A4 print rules, CJK fonts, cover, contents and five well-formed SVG figures"; else fail "html: print rules, cover, contents, figures"; fi
import json, re, sys
import xml.etree.ElementTree as ET
doc = json.load(open(sys.argv[3], encoding="utf-8"))
for path in sys.argv[1:3]:
    h = open(path, encoding="utf-8").read()
    css = re.search(r"<style>(.*?)</style>", h, re.S).group(1)
    for want in ("@page{size:A4", "@bottom-center{content:counter(page)", "counter(pages)", "break-after:avoid",
                 "break-inside:avoid", "'Noto Sans CJK SC'", "'Noto Serif CJK SC'", "'Source Han Sans SC'",
                 "'Microsoft YaHei'", "'PingFang SC'", "sans-serif"):
        assert want in css, (path, want)
    # nothing runs, nothing is fetched (the SVG namespace is a name, not a request)
    assert "<script" not in h and "<link" not in h and "src=" not in h and "url(" not in h, path
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg\")", h), path
    cover = re.search(r'<header class="cover">(.*?)</header>', h, re.S).group(1)
    head = re.search(r'id="audit">.*?<td>[^<]*</td><td>([0-9a-f]{64})</td>', h, re.S).group(1)
    for want in ("Acme Corp", "ACME-7", doc["generated_at"][:10], "ferry " + doc["ferry_version"], head):
        assert want in cover, (path, want)
    nav = re.search(r'<nav class="contents">(.*?)</nav>', h, re.S).group(1)
    links = re.findall(r'href="#([^"]+)"', nav)
    ids = set(re.findall(r' id="([^"]+)"', h))
    assert len(links) >= 10 and all(l in ids for l in links), (path, [l for l in links if l not in ids])
    figs = re.findall(r'<figure id="([^"]+)">\s*(<svg.*?</svg>)', h, re.S)
    assert [f[0] for f in figs] == ["fig-effort", "fig-findings", "fig-loss", "fig-dump", "fig-profile"], [f[0] for f in figs]
    for fid, svg in figs:
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg", fid
        texts = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert len(texts) >= 5 and root.find("{http://www.w3.org/2000/svg}title").text, fid
        if fid == "fig-dump":
            layer = doc["verdicts"]["dump"]["first_diverging_layer"]
            assert layer and any(layer in t for t in texts), (fid, layer)
        if fid == "fig-loss":
            assert len(root.findall("{http://www.w3.org/2000/svg}path")) >= 3, fid  # band + two curves
        if fid == "fig-profile":
            assert any("MatMul" in t for t in texts), texts
PY

if python3 - "$work/zh.html" "$work/zh.md" "$work/en.html" "$work/en.md" <<'PY'; then ok "markdown and html carry the same sections, in both languages"; else fail "markdown and html carry the same sections"; fi
import re, sys
for html, md in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    h = open(html, encoding="utf-8").read()
    m = open(md, encoding="utf-8").read()
    hs = re.findall(r'<h([2-4]) id="([^"]+)">([^<]*)</h', h)
    ms = re.findall(r'<a id="([^"]+)"></a>\n\n(#+) (.*)\n', m)
    hs = [(i, int(lv), t) for lv, i, t in hs if i != "contents"]
    ms = [(i, len(lv), t.replace("&lt;", "<").replace("&amp;", "&")) for i, lv, t in ms]
    hs = [(i, lv, t.replace("&lt;", "<").replace("&amp;", "&").replace("&#39;", "'").replace("&quot;", '"')) for i, lv, t in hs]
    assert hs == ms and len(hs) > 15, (html, [x for x in hs if x not in ms][:3], [x for x in ms if x not in hs][:3])
PY
expect_grep "执行摘要" "$work/zh.md" "markdown zh: the executive summary"
expect_grep "最近一次比对的 loss 曲线" "$work/zh.md" "markdown zh: the loss figure's caption"

# --- PDF ------------------------------------------------------------------------------------------------
expect_exit 2 "report --format pdf without --output is a usage error" -- "$FERRY" -C "$p" report --format pdf
one_line "$work/err" "pdf without --output: one line"
expect_exit 3 "report --format pdf with FERRY_CHROMIUM naming nothing" -- \
	env FERRY_CHROMIUM="$work/no-such-browser" "$FERRY" -C "$p" report --format pdf --output "$work/x.pdf"
one_line "$work/err" "FERRY_CHROMIUM missing: one line"
expect_grep "FERRY_CHROMIUM" "$work/err" "the error names FERRY_CHROMIUM"
mkdir -p "$work/nobrowser"
ln -s "$(command -v python3)" "$work/nobrowser/python3"
expect_exit 3 "report --format pdf with no chromium on PATH" -- \
	env PATH="$work/nobrowser" "$FERRY" -C "$p" report --format pdf --output "$work/x.pdf"
one_line "$work/err" "no chromium: one line"
expect_grep "install chromium" "$work/err" "the error says how to get a browser"
[ ! -e "$work/x.pdf" ] && ok "no PDF file left behind without a browser" || fail "a PDF file without a browser"

chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	echo "skipped: chromium not installed (PDF checks)"
elif ! command -v pdffonts >/dev/null || ! command -v pdftotext >/dev/null; then
	fail "pdffonts/pdftotext missing: install poppler-utils (scripts/setup.sh --test does)"
else
	expect_exit 0 "report --format pdf --lang zh" -- "$FERRY" -C "$p" report --format pdf --lang zh --output "$work/zh.pdf"
	pdfinfo "$work/zh.pdf" >"$work/pdfinfo" 2>&1
	expect_grep "Page size: *59[45].* x 84[12].*(A4)" "$work/pdfinfo" "pdf: A4 pages"
	pdffonts "$work/zh.pdf" >"$work/fonts" 2>&1
	pdftotext "$work/zh.pdf" "$work/zh.txt" 2>/dev/null
	if python3 - "$work/zh.pdf" "$work/fonts" "$work/zh.txt" "$work/zh.md" "$work/pdfinfo" <<'PY'; then ok "pdf: fonts embedded, a Noto CJK font, no missing-glyph box drawn, the Chinese headings back as text, numbered pages"; else fail "pdf: CJK fonts and text"; fi
import re, sys, zlib
pdf, fonts, txt, md, info = sys.argv[1:6]
# every font is embedded
rows = open(fonts).read().splitlines()[2:]
assert rows and all(re.search(r"\s(yes|no)\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$", r) for r in rows), rows[:3]
assert all(re.search(r"\syes\s+(yes|no)\s+(yes|no)\s+\d+\s+\d+$", r) for r in rows), [r for r in rows if " no " in r][:3]
# the fonts: a Noto CJK face among them (a Type 3 font names it in its descriptor)
d = open(pdf, "rb").read()
objs = {int(m.group(1)): m.group(2) for m in re.finditer(rb"(\d+) 0 obj(.*?)endobj", d, re.S)}
def stream(n):
    body = objs[n]
    data = re.search(rb"stream\r?\n(.*)endstream", body, re.S).group(1)
    return zlib.decompress(data) if b"FlateDecode" in body else data
def family(font):
    desc = font
    m = re.search(rb"/DescendantFonts \[?(\d+) 0 R", font)
    if m:
        desc = objs[int(m.group(1))]
    m = re.search(rb"/FontDescriptor (\d+) 0 R", desc)
    if not m:
        return ""
    fd = objs[int(m.group(1))]
    names = re.findall(rb"/FontName /([^\s/>]+)|/FontFamily \(([^)]*)\)", fd)
    return " ".join((a or b).decode("latin-1") for a, b in names)
names = {family(body) for body in objs.values() if b"/Type /Font" in body and b"/FontDescriptor" in body}
names |= {family(body) for body in objs.values() if b"/Type /Font" in body and b"/DescendantFonts" in body}
assert any(re.search(r"Noto ?Sans ?CJK|Noto ?Serif ?CJK|NotoSansCJK|NotoSerifCJK", f) for f in names), names
# no missing-glyph box: no glyph 0 (.notdef) is drawn. Type 3 fonts name their glyphs
# /g<id> through their encoding; Type 0 (Identity-H) fonts draw glyph ids directly.
def glyph_names(font):
    m = re.search(rb"/Differences \[(.*?)\]", font, re.S)
    names, code = {}, 0
    for tok in re.findall(rb"\d+|/[^\s/\]]+", m.group(1) if m else b""):
        if tok.startswith(b"/"):
            names[code] = tok[1:].decode()
            code += 1
        else:
            code = int(tok)
    return names
notdef = 0
shown = 0
for n, body in objs.items():
    if b"/Type /Page" not in body or b"/Contents" not in body:
        continue
    res = {k.decode(): int(v) for k, v in re.findall(rb"/(F\d+) (\d+) 0 R", body)}
    for c in re.findall(rb"/Contents \[?((?:\d+ 0 R\s*)+)", body)[0].split(b"R")[:-1]:
        content = stream(int(c.split()[0]))
        font = None
        for m in re.finditer(rb"/(F\d+) [\d.]+ Tf|<([0-9A-Fa-f]*)>\s*Tj|\[([^\]]*)\]\s*TJ", content):
            if m.group(1):
                font = objs[res[m.group(1).decode()]]
                continue
            hexes = [m.group(2)] if m.group(2) is not None else re.findall(rb"<([0-9A-Fa-f]*)>", m.group(3))
            codes = bytes.fromhex(b"".join(hexes).decode())
            if b"/Type3" in font:
                gl = glyph_names(font)
                bad = [x for x in codes if gl.get(x) == "g0"]
            else:
                bad = [i for i in range(0, len(codes) - 1, 2) if codes[i] == 0 and codes[i + 1] == 0]
            shown += len(codes)
            notdef += len(bad)
assert shown > 1000 and notdef == 0, ("glyphs drawn", shown, "missing-glyph boxes", notdef)
headings = re.findall(r"^#+ (.*)$", open(md, encoding="utf-8").read(), re.M)
han = {c for h in headings for c in h if "\u4e00" <= c <= "\u9fff"}
text = open(txt, encoding="utf-8").read()
assert len(han) > 20 and not [c for c in han if c not in text], [c for c in han if c not in text]
text = open(txt, encoding="utf-8").read()
for want in ("迁移评估报告", "目录", "执行摘要", "改动清单", "不支持清单", "审计记录", "最近一次比对的 loss 曲线"):
    assert want in text, want
pages = int(re.search(r"Pages:\s+(\d+)", open(info).read()).group(1))
assert pages > 3 and ("2 / %d" % pages) in text, pages
PY
	if python3 - "$p" "$FERRY" "$work/zh.pdf" <<'PY'; then ok "pdf: the report event records the PDF's hash"; else fail "pdf: the report event"; fi
import hashlib, json, subprocess, sys
ev = json.loads(subprocess.run([sys.argv[2], "-C", sys.argv[1], "log", "--json"], capture_output=True, check=True).stdout)["events"]
sha = hashlib.sha256(open(sys.argv[3], "rb").read()).hexdigest()
assert any(e["kind"] == "report" and e["data"]["format"] == "pdf" and e["data"]["sha256"] == sha and e["data"]["lang"] == "zh" for e in ev)
PY
fi

finish
