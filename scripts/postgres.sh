#!/usr/bin/env bash
# A throwaway PostgreSQL 15 cluster for irw's tests (`make test`, .ci/run) and for developers.
#
#   scripts/postgres.sh start DIR   creates a cluster in DIR (made if missing; must be empty or one
#                                   this script made), starts it on 127.0.0.1 at a free port with its
#                                   unix socket in DIR, waits until it accepts connections, and prints
#                                   its URL: postgresql://postgres@127.0.0.1:PORT/postgres
#   scripts/postgres.sh stop DIR    stops that cluster (pg_ctl stop -m fast) and removes DIR
#
# Both are idempotent: `start` on a running cluster prints its URL again, `stop` on a missing DIR
# does nothing. Authentication is `trust` (every local and 127.0.0.1 connection is accepted, any
# password too): for tests on this machine only, never for data anyone cares about. fsync is off.
#
# PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` user (Debian's
# package creates it), or to a system user `irwpg` made here when there is no `postgres` user. As
# root on Debian, Debian's `postgresql` package (PostgreSQL 15 on Debian 12) is installed when the
# binaries are absent, without the package's own cluster on port 5432. As anyone else the binaries
# must be there already, and the cluster belongs to the current user.
#
# Exit codes: 0 done, 2 usage or a DIR this script will not touch, 3 PostgreSQL 15 is not installed
# (and cannot be installed here), 1 anything else (the server's log is printed).
set -euo pipefail

readonly MAJOR=15
readonly MARKER=irw-postgres-cluster   # a file in DIR saying this script made it
readonly SUPERUSER=postgres
readonly AVOID_PORTS=" 5432 54329 "    # the usual server and the shared dev server

say() { printf 'postgres.sh: %s\n' "$*" >&2; }
die() { local code=$1; shift; say "$@"; exit "$code"; }

usage() {
    die 2 "usage: $0 start DIR | stop DIR   (DIR: a new or empty directory for a throwaway cluster, e.g. \$(mktemp -d))"
}

is_root() { [ "$(id -u)" = 0 ]; }

# The directory holding PostgreSQL 15's initdb, pg_ctl, postgres and pg_isready, or nothing.
find_bindir() {
    local candidates=("/usr/lib/postgresql/$MAJOR/bin")
    if command -v pg_config >/dev/null 2>&1; then candidates+=("$(pg_config --bindir 2>/dev/null || true)"); fi
    if command -v initdb >/dev/null 2>&1; then candidates+=("$(dirname "$(readlink -f "$(command -v initdb)")")"); fi
    local dir
    for dir in "${candidates[@]}"; do
        if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/postgres" ] \
                && [ -x "$dir/pg_isready" ] && [ "$(server_major "$dir")" = "$MAJOR" ]; then
            printf '%s\n' "$dir"
            return 0
        fi
    done
    return 1
}

# "15" from "postgres (PostgreSQL) 15.18 (Debian 15.18-0+deb12u1)"
server_major() { "$1/postgres" --version 2>/dev/null | sed -n 's/^[^0-9]*\([0-9][0-9]*\).*/\1/p'; }

install_debian_postgresql() {
    say "installing Debian's postgresql package (PostgreSQL $MAJOR) for the PostgreSQL tests"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    # postgresql-common first, told not to create the package's own cluster (port 5432, started at
    # boot): the tests only ever use throwaway clusters made by this script.
    apt-get install -y -qq --no-install-recommends postgresql-common >/dev/null
    sed -i 's/^[#[:space:]]*create_main_cluster[[:space:]]*=.*/create_main_cluster = false/' \
        /etc/postgresql-common/createcluster.conf
    apt-get install -y -qq --no-install-recommends postgresql >/dev/null
}

bindir_or_install() {
    local dir
    if dir="$(find_bindir)"; then printf '%s\n' "$dir"; return 0; fi
    if is_root && command -v apt-get >/dev/null 2>&1; then
        install_debian_postgresql || die 3 "apt-get could not install postgresql (see above)"
        if dir="$(find_bindir)"; then printf '%s\n' "$dir"; return 0; fi
        die 3 "installed Debian's postgresql, yet found no PostgreSQL $MAJOR initdb/pg_ctl/postgres/pg_isready" \
              "in /usr/lib/postgresql/$MAJOR/bin"
    fi
    die 3 "PostgreSQL $MAJOR is not installed (no initdb, pg_ctl, postgres and pg_isready of version $MAJOR in" \
          "/usr/lib/postgresql/$MAJOR/bin, pg_config --bindir or PATH). Install it as root" \
          "(Debian 12: apt-get install postgresql), or run the tests against a PostgreSQL $MAJOR server of yours:" \
          "IRW_TEST_POSTGRES=postgresql://USER@HOST:PORT/postgres"
}

# The user the cluster runs as: as root, postgres (or irwpg, created); otherwise the current user.
cluster_user() {
    if ! is_root; then id -un; return 0; fi
    if id -u postgres >/dev/null 2>&1; then echo postgres; return 0; fi
    if ! id -u irwpg >/dev/null 2>&1; then
        useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin irwpg \
            || die 1 "there is no postgres user and useradd could not create irwpg: create an unprivileged user to run PostgreSQL"
    fi
    echo irwpg
}

# Runs a command as the cluster's user (root cannot run PostgreSQL).
as_user() {
    local user=$1; shift
    if [ "$(id -un)" = "$user" ]; then "$@"; else runuser -u "$user" -- "$@"; fi
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

pick_port() {
    local port
    while :; do
        port=$((20000 + RANDOM % 12000))   # below Linux's ephemeral range (32768-60999)
        case "$AVOID_PORTS" in *" $port "*) continue ;; esac
        port_in_use "$port" || { echo "$port"; return 0; }
    done
}

running() { [ -f "$dir/data/postmaster.pid" ] && as_user "$user" "$bindir/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; }

url_for() { echo "postgresql://$SUPERUSER@127.0.0.1:$1/postgres"; }

show_log() {
    local log
    for log in "$dir/initdb.log" "$dir/server.log"; do
        [ -s "$log" ] && { say "last lines of $log:"; tail -n 20 "$log" >&2; }
    done
    return 0
}

start() {
    [ -n "${1:-}" ] || usage
    case "$1" in *"'"* | *$'\n'* | *'\'*) die 2 "DIR must not contain quotes, backslashes or newlines: $1" ;; esac
    bindir="$(bindir_or_install)"
    mkdir -p -- "$1" || die 2 "cannot create $1: choose a directory you can write, e.g. \$(mktemp -d)"
    dir="$(cd -- "$1" && pwd -P)"
    # the unix socket DIR/.s.PGSQL.PORT must fit in sun_path (107 bytes)
    [ "${#dir}" -le 90 ] || die 2 "DIR is too long for PostgreSQL's unix socket path (${#dir} > 90 characters): use a shorter path such as \$(mktemp -d)"
    if [ ! -e "$dir/$MARKER" ] && [ -n "$(ls -A -- "$dir")" ]; then
        die 2 "$dir is not empty and was not made by this script: give a new or empty directory"
    fi

    user="$(cluster_user)"
    touch "$dir/$MARKER"
    if is_root; then
        chown "$user:" "$dir"
        chmod 700 "$dir"
        as_user "$user" test -w "$dir" -a -x "$dir" \
            || die 2 "user $user cannot reach $dir (a parent directory is closed to it): use a directory under /tmp, e.g. \$(mktemp -d)"
    fi

    if running; then
        cat "$dir/url"
        return 0
    fi

    if [ ! -f "$dir/data/PG_VERSION" ]; then
        rm -rf -- "$dir/data"
        local locale=C
        if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then locale=C.UTF-8; fi
        # cwd: the cluster's user may not be able to read the caller's directory
        if ! (cd "$dir" && as_user "$user" "$bindir/initdb" -D "$dir/data" -U "$SUPERUSER" -A trust -E UTF8 \
                --locale="$locale" --no-sync >"$dir/initdb.log" 2>&1); then
            show_log
            die 1 "initdb failed in $dir/data (log above)"
        fi
        {
            echo "# scripts/postgres.sh: a throwaway test cluster"
            echo "listen_addresses = '127.0.0.1'"
            echo "unix_socket_directories = '$dir'"
            echo "fsync = off"
            echo "synchronous_commit = off"
            echo "full_page_writes = off"
            echo "include_if_exists = 'port.conf'"
        } | as_user "$user" tee -a "$dir/data/postgresql.conf" >/dev/null
    fi

    # A free port: checked before, and tried again elsewhere if another process takes it first.
    local port attempt
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        if [ "$attempt" = 1 ] && [ -s "$dir/port" ] && ! port_in_use "$(cat "$dir/port")"; then
            port="$(cat "$dir/port")"
        else
            port="$(pick_port)"
        fi
        echo "port = $port" | as_user "$user" tee "$dir/data/port.conf" >/dev/null
        : | as_user "$user" tee "$dir/server.log" >/dev/null
        if (cd "$dir" && as_user "$user" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 start \
                >/dev/null 2>&1); then
            break
        fi
        if grep -q 'could not bind\|could not create any TCP/IP sockets\|Address already in use' "$dir/server.log"; then
            port=""
            continue
        fi
        show_log
        die 1 "PostgreSQL did not start in $dir (log above)"
    done
    [ -n "$port" ] || { show_log; die 1 "found no free port for PostgreSQL after 10 tries (log above)"; }
    echo "$port" >"$dir/port"

    local tries=0
    until "$bindir/pg_isready" -q -h 127.0.0.1 -p "$port" -U "$SUPERUSER" -d postgres; do
        tries=$((tries + 1))
        if [ "$tries" -ge 60 ]; then show_log; die 1 "PostgreSQL started in $dir but is not ready after 30 s (log above)"; fi
        sleep 0.5
    done
    url_for "$port" | tee "$dir/url"
}

stop() {
    [ -n "${1:-}" ] || usage
    if [ ! -e "$1" ]; then
        say "nothing to stop: $1 does not exist"
        return 0
    fi
    dir="$(cd -- "$1" && pwd -P)"
    if [ ! -e "$dir/$MARKER" ]; then
        if [ -z "$(ls -A -- "$dir")" ]; then rmdir -- "$dir"; return 0; fi
        die 2 "$dir was not made by scripts/postgres.sh start (no $MARKER file): not touching it"
    fi
    if [ -f "$dir/data/postmaster.pid" ]; then
        user="$(stat -c %U "$dir/data")"
        if [ "$user" != "$(id -un)" ] && ! is_root; then
            die 1 "the cluster in $dir runs as $user: stop it as $user or as root"
        fi
        bindir="$(find_bindir)" || die 3 "a cluster runs in $dir but PostgreSQL $MAJOR's pg_ctl is gone: stop its postmaster (pid in $dir/data/postmaster.pid) by hand"
        if running; then
            (cd "$dir" && as_user "$user" "$bindir/pg_ctl" -D "$dir/data" stop -m fast -w -t 60 >/dev/null) \
                || die 1 "pg_ctl could not stop the cluster in $dir: see $dir/server.log"
        fi
    fi
    rm -rf -- "$dir"
}

dir="" user="" bindir=""
case "${1:-}" in
    start) start "${2:-}" ;;
    stop) stop "${2:-}" ;;
    *) usage ;;
esac
