#!/usr/bin/env bash
# Everything `npm test` needs beyond node_modules, set up before any slow stage so a fresh
# machine either gets equipped or stops at once with the exact command to run, instead of
# failing later in the webview stage.
#
#   bash scripts/provision.sh           check; install what is missing (Debian packages
#                                       only as root with apt-get), then the cached tools
#   bash scripts/provision.sh --check   check the Debian packages only; never installs
#
# An equipped machine pays a few file/command checks and nothing else: `apt-get update`
# and `apt-get install` run only when something is missing.
#
# To add a requirement, add one line below: a `package` line for a Debian package (with a
# cheap check that tells it is there, so other distributions and custom paths still work),
# a `cached` line for a tool installed into a cache folder outside the repo.
set -euo pipefail
cd "$(dirname "$0")/.."

# package DEBIAN-NAME KIND WHAT: KIND is cmd (a command on PATH), exe (an executable
# file), file (a file, e.g. a header), pc (a pkg-config module) or dpkg (the package).
declare_packages() {
  # The browser for the webview and end-to-end suites (test/support/chromium.ts).
  package chromium        exe  "${KSM_E2E_CHROMIUM:-/usr/bin/chromium}"
  # code-server: its search needs rg (GitHub's download is blocked, so Debian's is copied
  # in), and `npm rebuild` compiles its native modules (node-pty, kerberos, argon2, …).
  package ripgrep         cmd  rg
  package pkg-config      cmd  pkg-config
  package libkrb5-dev     file /usr/include/krb5.h
  package libx11-dev      file /usr/include/X11/Xlib.h
  package libxkbfile-dev  file /usr/include/X11/extensions/XKBfile.h
  package libsecret-1-dev pc   libsecret-1
  package make            cmd  make
  package g++             cmd  g++
  package python3         cmd  python3
  # curl: the upload benchmark's baseline; CA certificates for TLS everywhere.
  package curl            cmd  curl
  package ca-certificates file /etc/ssl/certs/ca-certificates.crt
  # More Debian packages to require, space-separated (checked with dpkg).
  local extra
  for extra in ${KSM_PROVISION_EXTRA_PACKAGES:-}; do package "$extra" dpkg "$extra"; done
}

# cached "WHAT" COMMAND…: COMMAND installs WHAT into a cache once (reusing it afterwards)
# and exits non-zero with a message naming what failed.
declare_cached_tools() {
  cached "code-server 4.100.3 (VS Code 1.100.3) for the end-to-end suite" bash scripts/setup-code-server.sh
}

say() { echo "provision: $*" >&2; }
fail() { echo "provision: FAILED: $*" >&2; exit 1; }

present() { # KIND WHAT
  case "$1" in
    cmd) command -v "$2" >/dev/null 2>&1 ;;
    exe) [ -f "$2" ] && [ -x "$2" ] ;;
    file) [ -f "$2" ] ;;
    pc) command -v pkg-config >/dev/null 2>&1 && pkg-config --exists "$2" ;;
    dpkg) [ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$2" 2>/dev/null)" = "ii " ] ;;
    *) fail "scripts/provision.sh: unknown check kind '$1'" ;;
  esac
}

missing=()      # Debian package names
missing_why=()  # what each check looked for
package() { # NAME KIND WHAT
  present "$2" "$3" && return 0
  missing+=("$1")
  local looked
  case "$2" in
    cmd) looked="no command $3" ;;
    exe) looked="no executable $3" ;;
    file) looked="no file $3" ;;
    pc) looked="no pkg-config module $3" ;;
    dpkg) looked="not installed" ;;
  esac
  missing_why+=("$1 ($looked)")
}
check_packages() {
  missing=()
  missing_why=()
  declare_packages
}

missing_list() { printf '%s, ' "${missing_why[@]}" | sed 's/, $//'; }
apt_install_command() {
  local sudo=$1
  echo "${sudo}apt-get update && ${sudo}apt-get install -y --no-install-recommends ${missing[*]}"
}

check_packages
if [ ${#missing[@]} -gt 0 ]; then
  if [ "${1:-}" = --check ] || [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    if ! command -v apt-get >/dev/null 2>&1; then
      fail "missing: $(missing_list).
This machine has no apt-get: install the equivalents of these Debian packages with its package
manager (or point KSM_E2E_CHROMIUM at another Chromium), then run the command again."
    fi
    if [ "$(id -u)" = 0 ]; then
      command=$(apt_install_command "")
    elif command -v sudo >/dev/null 2>&1; then
      command=$(apt_install_command "sudo ")
    else
      command="su -c '$(apt_install_command "")'"
    fi
    fail "missing: $(missing_list).
Install them, then run the command again:

    $command
"
  fi
  say "installing missing Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  log=$(mktemp)
  trap 'rm -f "$log"' EXIT
  # Another apt on the machine holds the lock for a while: wait for it instead of failing.
  apt_opts=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
  if ! apt-get "${apt_opts[@]}" update -qq >"$log" 2>&1 \
    || ! apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1; then
    fail "apt-get could not install ${missing[*]}; its last lines:
$(tail -15 "$log")
Run it yourself to see everything:  $(apt_install_command "")"
  fi
  check_packages
  [ ${#missing[@]} -eq 0 ] || fail "still missing after apt-get install: $(missing_list).
The check looks where the package does not install (KSM_E2E_CHROMIUM set to another path?)."
  say "installed."
fi
[ "${1:-}" = --check ] && exit 0

cached() { # WHAT COMMAND…
  local what=$1
  shift
  "$@" >/dev/null || fail "could not set up $what (\`$*\`; its message is above)."
  say "$what: ready"
}
declare_cached_tools
