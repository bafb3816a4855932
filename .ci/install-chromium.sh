#!/usr/bin/env bash
# Install Debian's chromium for the report's browser test, unless it is already there.
# Idempotent and quiet: prints one line when it installs, nothing when it need not.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-chromium: apt-get not found; the HTML report's browser test will be skipped" >&2
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    sudo="sudo"
fi
echo "install-chromium: installing chromium (Debian package)"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >/dev/null
$sudo apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null
