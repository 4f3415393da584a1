#!/usr/bin/env bash
# Renders a bench report.html in headless Chromium: the page's script ran
# (body data-script="ready"), wrote no error into <pre id="errors"> and
# logged no uncaught exception, and the instance tables hold one row per
# (problem, instance file) of results.jsonl. Saves a screenshot.
#
# Installs Debian's chromium with apt-get when it is missing; when that is
# impossible it prints why and exits 0 with "skipped".
#
# Usage: tests/report_chromium.sh [SERVERPICK binary] ; OUT=DIR keeps the
# bench folder, the dumped DOM and the screenshot (report.png) in DIR
# (default: a temporary folder, removed).
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
bin="$(realpath "${1:-$repo/target/release/serverpick}")"
say() { echo "report check: $*"; }
skip() {
  say "skipped: $*"
  exit 0
}
[ -x "$bin" ] || {
  say "no binary at $bin (cargo build --release first)"
  exit 1
}

chromium=""
for c in chromium chromium-browser; do
  command -v "$c" >/dev/null 2>&1 && chromium="$(command -v "$c")" && break
done
if [ -z "$chromium" ]; then
  command -v apt-get >/dev/null 2>&1 || skip "no chromium and no apt-get"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null ||
      skip "no chromium; not root and no password-less sudo to install it"
    sudo="sudo -n"
  fi
  say "installing chromium"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq >/dev/null 2>&1 || skip "apt-get update failed"
  $sudo apt-get install -y -qq --no-install-recommends chromium >/dev/null 2>&1 ||
    skip "apt-get install chromium failed"
  chromium="$(command -v chromium)" || skip "chromium installed but not on PATH"
fi

tmp="$(mktemp -d)"
out="${OUT:-$tmp}"
mkdir -p "$out"
trap 'rm -rf "$tmp"' EXIT
rm -rf "$out/bench"
(cd "$repo" && "$bin" bench instances/ --out "$out/bench" --quiet) >"$tmp/bench.log" 2>&1 || {
  cat "$tmp/bench.log"
  exit 1
}
page="$out/bench/report.html"

browse() {
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$(mktemp -d "$tmp/profile.XXXXXX")" "$@"
}
browse --enable-logging=stderr --v=0 --dump-dom "file://$page" \
  >"$out/dom.html" 2>"$tmp/chromium.log" || {
  cat "$tmp/chromium.log"
  exit 1
}
if grep -i "uncaught" "$tmp/chromium.log"; then
  say "the page's script threw"
  exit 1
fi
python3 - "$out/dom.html" "$out/bench/results.jsonl" <<'PY'
import json, re, sys

dom = open(sys.argv[1], encoding="utf-8").read()
rows = [json.loads(l) for l in open(sys.argv[2], encoding="utf-8") if l.strip()]
fail = []
if not re.search(r'<body[^>]*data-script="ready"', dom):
    fail.append('the script did not finish (no data-script="ready" on <body>)')
errors = re.search(r'<pre id="errors"[^>]*>(.*?)</pre>', dom, re.S)
if errors is None:
    fail.append("no <pre id=errors> in the page")
elif errors.group(1).strip():
    fail.append("the script reported: " + errors.group(1).strip())
want = len({(r["problem"], r["file"]) for r in rows})
got = len(re.findall(r'<tr data-file="', dom))
if got != want:
    fail.append(f"{got} instance rows in the tables, expected {want}")
shown = re.search(r'id="shown"[^>]*>(\d+) of (\d+) instance rows shown<', dom)
if shown is None or shown.group(1) != str(want):
    fail.append("the filter's count is missing or wrong: " + (shown.group(0) if shown else "none"))
if fail:
    print("report check: " + "; ".join(fail))
    sys.exit(1)
print(f"report check: {got} instance rows rendered, script ready, no errors")
PY
browse --hide-scrollbars --window-size=1400,1000 --screenshot="$out/report.png" "file://$page" \
  >/dev/null 2>&1
[ -s "$out/report.png" ] || {
  say "no screenshot"
  exit 1
}
[ -n "${OUT:-}" ] && say "screenshot: $out/report.png" || say "passed"
