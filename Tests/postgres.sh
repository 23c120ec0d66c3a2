#!/usr/bin/env bash
# A private PostgreSQL cluster for the tests of VitalSinks, in a folder of its own:
#
#   bash Tests/postgres.sh start DIR   # DIR: an empty (or new) folder; writes DIR/cluster.env when it accepts connections
#   bash Tests/postgres.sh stop DIR
#   bash Tests/postgres.sh restart DIR # an immediate stop, as a crash would, then a start
#
# It listens on a Unix socket in DIR and on 127.0.0.1 at a free port, with TLS (a CA of its own, DIR/ca.crt, and a
# server certificate for localhost and 127.0.0.1). Roles, and how pg_hba.conf lets them in:
#   vitalbridge           the superuser: trust over the socket only
#   vitalbridge_password  SCRAM password, over the socket or TCP (with or without TLS)
#   vitalbridge_ssl       SCRAM password, over TCP with TLS only (hostssl; plain TCP is rejected)
# DIR/cluster.env lists them (KEY=VALUE lines, read by Tests/VitalTestSupport/PrivatePostgres.swift). PostgreSQL
# refuses to run as root: as root the cluster runs as the user postgres (Debian's package makes it), and DIR is
# handed to it.
set -euo pipefail

usage() {
    echo "usage: $0 start|stop|restart DIR" >&2
    exit 2
}
[ $# -eq 2 ] || usage
command=$1
dir=$2

# the newest installed server's programs (Debian keeps them out of PATH, in /usr/lib/postgresql/VERSION/bin)
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    if command -v initdb >/dev/null 2>&1; then
        bindir=$(dirname "$(command -v initdb)")
    else
        echo "error: no PostgreSQL server (initdb, pg_ctl): install the Debian package postgresql" >&2
        exit 1
    fi
fi

# runs a command as the cluster's owner: this user, or postgres when this is root
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "$command" in
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    fi
    exit 0
    ;;
restart)
    # stops the running server at once (what a crash or a reboot does to its connections), then starts it again
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start >/dev/null
    exit 0
    ;;
start) ;;
*) usage ;;
esac

command -v openssl >/dev/null 2>&1 || {
    echo "error: openssl is missing: install the Debian package openssl" >&2
    exit 1
}
if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
    echo "error: running as root, and there is no user postgres to run the cluster (the Debian package postgresql makes it)" >&2
    exit 1
fi

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
if [ -e "$dir/data" ]; then
    echo "error: $dir already holds a cluster" >&2
    exit 1
fi

# the CA, the server's certificate, and a second CA that signed nothing of this cluster (for the tests' wrong CA)
(
    cd "$dir"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=VitalBridge test CA" -keyout ca.key -out ca.crt \
        >/dev/null 2>&1
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=VitalBridge other CA" -keyout other-ca.key \
        -out other-ca.crt >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr >/dev/null 2>&1
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext \
        -out server.crt >/dev/null 2>&1
    chmod 600 server.key ca.key other-ca.key
    chmod 644 ca.crt other-ca.crt server.crt
)

if [ "$(id -u)" -eq 0 ]; then
    chown -R postgres: "$dir"
fi
chmod 700 "$dir"

as_owner "$bindir/initdb" -D "$dir/data" -U vitalbridge --auth=trust -E UTF8 --locale=C.UTF-8 --no-sync \
    >"$dir/initdb.log" 2>&1 || {
    echo "error: initdb failed:" >&2
    tail -n 20 "$dir/initdb.log" >&2
    exit 1
}

cat >"$dir/data/pg_hba.conf" <<'EOF'
# TYPE    DATABASE USER                 ADDRESS       METHOD
local     all      vitalbridge                        trust
local     all      all                                scram-sha-256
hostssl   all      vitalbridge_ssl      127.0.0.1/32  scram-sha-256
hostssl   all      vitalbridge_password 127.0.0.1/32  scram-sha-256
hostnossl all      vitalbridge_password 127.0.0.1/32  scram-sha-256
host      all      all                  0.0.0.0/0     reject
EOF

started=
for _ in 1 2 3 4 5 6 7 8; do
    port=$((20000 + RANDOM % 30000))
    cat >"$dir/data/postgresql.auto.conf" <<EOF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$dir'
ssl = on
ssl_cert_file = '$dir/server.crt'
ssl_key_file = '$dir/server.key'
password_encryption = 'scram-sha-256'
max_connections = 60
shared_buffers = '64MB'
fsync = off
synchronous_commit = off
full_page_writes = off
log_min_messages = warning
timezone = 'UTC'
EOF
    if as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -w -t 60 start >/dev/null 2>&1; then
        started=1
        break
    fi
    # another program may have the port: try another
    grep -q "could not bind\|Address already in use" "$dir/postgres.log" 2>/dev/null || break
done
if [ -z "$started" ]; then
    echo "error: the PostgreSQL server in $dir did not start; its log ends:" >&2
    tail -n 20 "$dir/postgres.log" >&2 || true
    exit 1
fi

# a password with the characters ~/.pgpass escapes (: and \) and a #, which starts a comment only at a line's start
password='vb:pa\ss#1'
as_owner "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U vitalbridge -d postgres >/dev/null <<EOF
CREATE ROLE vitalbridge_password LOGIN PASSWORD \$pw\$$password\$pw\$;
CREATE ROLE vitalbridge_ssl LOGIN PASSWORD \$pw\$$password\$pw\$;
EOF

cat >"$dir/cluster.env.new" <<EOF
SOCKET_DIR=$dir
PORT=$port
SUPERUSER=vitalbridge
PASSWORD_ROLE=vitalbridge_password
SSL_ROLE=vitalbridge_ssl
PASSWORD=$password
CA=$dir/ca.crt
OTHER_CA=$dir/other-ca.crt
LOG=$dir/postgres.log
BIN=$bindir
EOF
chmod 644 "$dir/cluster.env.new"
mv "$dir/cluster.env.new" "$dir/cluster.env"
echo "PostgreSQL on $dir/.s.PGSQL.$port and 127.0.0.1:$port"
