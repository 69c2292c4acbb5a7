#!/bin/bash
# The host in the nightly's history (schema 4), from real records of two
# server hosts (tests/fixtures/records-286d1ca-hosts: one night of the fleet
# plan on the test host h1, one on h2, made by 286d1ca over SSH; the two
# records of each name their host in hosts.server and environment):
# - the history 286d1ca wrote from them (schema 3: its series keys lack the
#   host, so both hosts shared one series per configuration) migrates to
#   schema 4 (and on to 5) and still reads: the host of each run from its record, two
#   series per configuration, the overheads derived again per host; the
#   digest, the dashboard and the SQL views name the hosts; a new night of
#   h1 goes on in h1's series;
# - the same history with its record files gone migrates too, its runs on
#   host "unknown";
# - the two hosts' nights ingested into a new history: two series per
#   configuration.
# SQLite here; PostgreSQL's migration from schema 3 is in history-postgresql.t.
# A few seconds.
. "$(dirname "$0")/../../lib.sh"
M="$B/mtebench"
command -v sqlite3 >/dev/null || skip_all "no sqlite3 (make deps)"
FX="$ROOT/tests/fixtures/records-286d1ca-hosts"
R="$T_TMP/rec"
cp -r "$FX" "$R"
sq() { sqlite3 "$1" "$2" | tr '\n' ' ' | sed 's/ $//'; }
# per configuration hash: how many series, on which hosts ("hash=N:h1,h2 ...")
per_config() { sq "$1" "SELECT config_hash || '=' || count(DISTINCT series) || ':' || group_concat(DISTINCT host) FROM
    (SELECT config_hash, series, host FROM runs ORDER BY host) GROUP BY config_hash ORDER BY config_hash"; }

# ---- 286d1ca's schema 3 history of the two hosts ---------------------------------------
H="$T_TMP/h3.sqlite"
sed "s#@RECORDS@#$R#g; s#@DASH@#$T_TMP/dash0#g" "$FX/history-schema3.sql" | sqlite3 "$H"
is "$(sq "$H" 'PRAGMA user_version')" 3 "286d1ca's history is schema 3"
is "$(sq "$H" 'SELECT count(DISTINCT series) FROM runs')" 2 "... where h1 and h2 share one series per configuration (2)"
before=$(sq "$H" 'SELECT DISTINCT config_hash FROM runs ORDER BY 1')
"$M" nightly --ingest "$R/h1" --history "$H" --out "$T_TMP/d3" > "$T_TMP/o3" 2> "$T_TMP/e3"
is "$?" 0 "nightly opens it (its nights are already there)" || dump "$T_TMP/e3"
ok "$(grep -q 'already in the history' "$T_TMP/e3"; echo $?)" "... adding nothing" || dump "$T_TMP/e3"
is "$(sq "$H" 'PRAGMA user_version')" 6 "migrated to schema 6 (4: the hosts; 5: the capacity table; 6: the work table)"
is "$(sq "$H" 'SELECT id || ":" || host FROM runs ORDER BY id')" "1:h1 2:h1 3:h2 4:h2" "each run's host from its record"
is "$(sq "$H" 'SELECT DISTINCT config_hash FROM runs ORDER BY 1')" "$before" "configuration hashes unchanged"
c=$(per_config "$H")
is "$(echo "$c" | grep -o '=2:h1,h2' | wc -l)" 2 "two series per configuration, one on each host ($c)"
is "$(sq "$H" "SELECT count(*) FROM runs WHERE series NOT LIKE '% on ' || host || '#' || config_hash")" 0 \
    "every series key ends ' on HOST#hash'"
is "$(sq "$H" 'SELECT host FROM overheads ORDER BY host')" "h1 h2" "overheads derived again: one pair per host"
is "$(sq "$H" "SELECT count(*) FROM overheads o JOIN runs t ON 'overhead:' || t.series = o.series AND t.night = o.night
    AND t.rep = o.rep AND t.variant = 'tagged' AND t.host = o.host")" 2 "... each of its host's tagged run"
is "$(jq '[.series[] | select(.metric == "throughput")] | length' "$T_TMP/d3/analysis.json")" 4 \
    "the nightly analyses throughput of 4 series (2 configurations x 2 hosts)"
is "$(jq -r '[.series[] | .host] | unique | join(" ")' "$T_TMP/d3/analysis.json")" "h1 h2" "analysis.json: each series' host"
ok "$(grep -q '^Series by host: h1 (3 series), h2 (3 series)\.$' "$T_TMP/d3/digest.md"; echo $?)" \
    "the digest names the hosts and their series" || dump "$T_TMP/d3/digest.md"
ok "$(grep -q 'night 1 (.*, on h1)' "$T_TMP/d3/digest.md" && grep -q 'night 2 (.*, on h2)' "$T_TMP/d3/digest.md"; echo $?)" \
    "the digest's busy nights name their host" || dump "$T_TMP/d3/digest.md"
ok "$(grep -q '<h3>[^<]* on h1 — throughput' "$T_TMP/d3/index.html" && grep -q '<h3>[^<]* on h2 — throughput' "$T_TMP/d3/index.html"; echo $?)" \
    "the dashboard's series are titled with their host"
ok "$(grep -q 'id="hosts">2 hosts: h1 (3 series), h2 (3 series)' "$T_TMP/d3/index.html"; echo $?)" "the dashboard names the hosts"
is "$(sq "$H" "SELECT DISTINCT host || '/' || night_host FROM mtebench_runs_v ORDER BY 1")" "h1/vm h2/vm" \
    "view mtebench_runs_v: the run's host, and night_host, who added the night (286d1ca's controller)"
is "$(sq "$H" "SELECT count(*) FROM mtebench_overheads_v WHERE config LIKE '% on ' || host")" 2 \
    "view mtebench_overheads_v: one row per host, its config naming it"

# a new night of h1 (its records in another directory): h1's series go on
cp -r "$R/h1" "$T_TMP/h1-night3"
"$M" nightly --ingest "$T_TMP/h1-night3" --history "$H" --out "$T_TMP/d4" > "$T_TMP/o4" 2> "$T_TMP/e4"
is "$?" 0 "a third night, h1's again" || dump "$T_TMP/e4"
is "$(jq -r '[.series[] | select(.metric == "throughput") | "\(.host)=\(.points)"] | sort | join(" ")' "$T_TMP/d4/analysis.json")" \
    "h1=2 h1=2 h2=1 h2=1" "... joins the migrated h1 series (2 nights each), h2's untouched"

# ---- the same history, its record files gone: migrated, on host "unknown" ----------------
H2="$T_TMP/gone.sqlite"
sed "s#@RECORDS@#$T_TMP/gone#g; s#@DASH@#$T_TMP/dash0#g" "$FX/history-schema3.sql" | sqlite3 "$H2"
"$M" nightly --ingest "$T_TMP/h1-night3" --history "$H2" --out "$T_TMP/d5" > "$T_TMP/o5" 2> "$T_TMP/e5"
is "$?" 0 "schema 3 without its records: opened and a night added" || dump "$T_TMP/e5"
is "$(sq "$H2" 'PRAGMA user_version')" 6 "migrated to schema 6"
is "$(sq "$H2" 'SELECT id || ":" || host FROM runs WHERE id <= 4 ORDER BY id')" "1:unknown 2:unknown 3:unknown 4:unknown" \
    "the old runs' host is unknown (no record says it)"
is "$(sq "$H2" "SELECT count(DISTINCT series) FROM runs WHERE host = 'unknown'")" 2 "... their series kept, one per configuration"
is "$(jq -r '[.series[] | select(.metric == "throughput") | "\(.host)=\(.points)"] | sort | join(" ")' "$T_TMP/d5/analysis.json")" \
    "h1=1 h1=1 unknown=2 unknown=2" "the old series read (2 nights each, on unknown), the new night on h1"

# ---- the two hosts' nights into a new history ----------------------------------------------
H3="$T_TMP/new.sqlite"
"$M" nightly --ingest "$R/h1" "$R/h2" --history "$H3" --out "$T_TMP/d6" > "$T_TMP/o6" 2> "$T_TMP/e6"
is "$?" 0 "h1's and h2's nights into a new history" || dump "$T_TMP/e6"
c=$(per_config "$H3")
is "$(echo "$c" | grep -o '=2:h1,h2' | wc -l)" 2 "two series per configuration, one per host ($c)"
is "$(sq "$H3" 'SELECT host FROM overheads ORDER BY host')" "h1 h2" "one overhead pair per host"
done_testing
