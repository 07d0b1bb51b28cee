# Sourced by the benchmarks that need a month of delivery log: a throwaway PostgreSQL 15 cluster with its durable
# defaults (fsync and synchronous_commit on) except max_wal_size=8GB, migrated by `herald migrate up` and loaded by
# Benchmarks/logs-at-scale/setup.sql. The caller sets `work` (a folder) and `herald` (the binary), and defines
# `clock`; it runs `trap cleanup EXIT`, and adds the
# processes it starts to `pids`, which `cleanup` terminates before it stops the cluster (KEEP=1 keeps `work`). A
# background process of a script ignores SIGINT unless it installs its own handler, so they get SIGTERM.
# After `start_log_cluster`, `url` is the database URL and PGHOST/PGPORT/PGUSER/PGDATABASE point psql at it.

# The log's size: ROWS rows over DAYS days, for USERS users with DEVICES devices, NOTIFICATIONS notifications and
# PROJECTS projects.
ROWS=${ROWS:-10000000}
DAYS=${DAYS:-30}
USERS=${USERS:-100000}
DEVICES=${DEVICES:-$((USERS * 2))}
NOTIFICATIONS=${NOTIFICATIONS:-$((ROWS / 20))}
PROJECTS=${PROJECTS:-2000}

pg_bin=$(ls -d /usr/lib/postgresql/15/bin 2>/dev/null || dirname "$(command -v initdb)")
[[ -x "$pg_bin/initdb" && -x "$pg_bin/postgres" ]] || { echo "PostgreSQL 15 not found" >&2; exit 1; }
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# PostgreSQL refuses to run as root: as root, the cluster runs as the `postgres` account.
as_postgres=()
if [[ $(id -u) == 0 ]]; then as_postgres=(setpriv --reuid=postgres --regid=postgres --init-groups --); fi

pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    [[ -f "$work/data/postmaster.pid" ]] && "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$work/data" -m fast -w stop >/dev/null
    if [[ "${KEEP:-0}" == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi
}

start_log_cluster() {
    [[ $(id -u) == 0 ]] && chown postgres: "$work"
    local port="" candidate
    for candidate in $(shuf -i 20000-60000 -n 50); do
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$candidate") 2>/dev/null; then port=$candidate; break; fi
    done
    [[ -n "$port" ]] || { echo "no free port found" >&2; exit 1; }
    clock "PostgreSQL 15 in $work, port $port"
    "${as_postgres[@]}" "$pg_bin/initdb" -D "$work/data" -U herald --auth=trust -E UTF8 --locale=C >"$work/initdb.log"
    "${as_postgres[@]}" "$pg_bin/pg_ctl" -D "$work/data" -l "$work/postgres.log" -w -o \
        "-p $port -k $work -c listen_addresses=127.0.0.1 -c max_wal_size=8GB" start >/dev/null
    export PGHOST=127.0.0.1 PGPORT=$port PGUSER=herald PGDATABASE=herald
    psql -q -d postgres -c "CREATE DATABASE herald"
    url="postgres://herald@127.0.0.1:$port/herald"
    echo "PostgreSQL: $(psql -Atc "SELECT string_agg(name || '=' || setting || coalesce(unit, ''), ', ' ORDER BY name)
        FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes', 'shared_buffers',
        'max_wal_size', 'server_version')")"
    "$herald" migrate up --database-url "$url" --migrations Migrations >"$work/migrate.log"
    clock "migrated ($(grep -c . "$work/migrate.log") migrations)"
}

load_log_rows() {
    local t fillers=() part pid
    t=$(date +%s%N)
    psql -q -X -v users="$USERS" -v devices="$DEVICES" -v projects="$PROJECTS" -v notifications="$NOTIFICATIONS" \
        -v rows="$ROWS" -v days="$DAYS" -f Benchmarks/logs-at-scale/setup.sql >"$work/load.log"
    for part in 0 1; do
        psql -q -X -c "SELECT bench.fill_days($part, 2)" >>"$work/load.log" &
        fillers+=($!)
    done
    for pid in "${fillers[@]}"; do wait "$pid"; done
    psql -q -X -f Benchmarks/logs-at-scale/finish.sql >>"$work/load.log" 2>&1
    clock "loaded $ROWS log rows over $DAYS days in $(($(ms_since "$t") / 1000)) s"
    # Every table but the partitioned log itself, whose own statistics autovacuum never gathers (its partitions' it
    # does).
    t=$(date +%s%N)
    psql -q -X <<'SQL'
SELECT 'VACUUM (ANALYZE) ' || string_agg(oid::regclass::text, ', ') FROM pg_class
WHERE relkind IN ('r', 'm') AND relnamespace = 'public'::regnamespace \gexec
SQL
    clock "VACUUM (ANALYZE) in $(($(ms_since "$t") / 1000)) s"
}
