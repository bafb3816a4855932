#!/usr/bin/env bash
# Install Debian's chromium for the report's browser tests, unless it is already there.
# Idempotent and quiet: prints one line when it installs, nothing when it need not.
# Fails (exit 1, naming what to do) where it cannot install: run-tests then stops
# instead of letting the browser tests skip.
set -euo pipefail

if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-chromium: apt-get not found; install Chromium with your package manager" \
        "(it must be on PATH as chromium, chromium-browser, google-chrome or chrome)" >&2
    exit 1
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
