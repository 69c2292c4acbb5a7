#!/bin/bash
# nightly-runner.sh - the unattended nightly of mtebench, safe to point at a
# public repository: it runs only code that a key you trust has signed.
#
#   contrib/nightly-runner.sh [CONFIG]        (default /etc/mtebench/nightly-runner.conf)
#
# CONFIG holds KEY=VALUE lines (read as data, never executed as shell):
#   MTEBENCH_REMOTE   git URL to fetch from (credentials in it are never printed)
#   MTEBENCH_BRANCH   the pinned branch to run, e.g. main            } one of
#   MTEBENCH_TAGS     a tag pattern, e.g. nightly-*: run the newest   } the two
#   MTEBENCH_KEYS     a file of trusted public keys (gpg --export --armor); the
#                     runner imports it into a fresh, private GNUPGHOME each run
#   MTEBENCH_GNUPGHOME  or: a keyring directory used as it is (GNUPGHOME)
#   MTEBENCH_SIGNERS  optional: the fingerprints allowed to sign (space separated);
#                     default: any key of the keyring
#   MTEBENCH_HOME     state: src/ (the checkout), history.sqlite, dashboard/
#                     (default /var/lib/mtebench)
#   MTEBENCH_USER     the unprivileged user that builds and runs (default mtebench);
#                     started as root, the runner re-executes itself as that user
#   MTEBENCH_HISTORY  the history: default MTEBENCH_HOME/history.sqlite; or a
#                     postgresql:// URL for a store shared by several machines
#                     (keep its password in MTEBENCH_HOME/.pgpass, mode 0600,
#                     which libpq reads; mtebench never prints it either way)
#   MTEBENCH_ARGS     extra options for `mtebench nightly` (e.g. --platform emu)
#   MTEBENCH_RUN      replaces the build+nightly command (tests)
#
# Only refs/heads/BRANCH or refs/tags/PATTERN are fetched: pull-request refs
# (refs/pull/*, refs/merge-requests/*) are never fetched, so their code cannot
# run. The revision is verified (git verify-commit / git verify-tag) before it
# is checked out, and the verified object id is the one checked out.
#
# Exit status: that of `mtebench nightly` (0 no new regression, 3 regression,
# ...); 2 bad configuration; 5 the revision is unsigned or wrongly signed
# (nothing was run); 6 fetch or checkout failed.
set -u
umask 022
CONFIG=${1:-/etc/mtebench/nightly-runner.conf}
say() { echo "nightly-runner: $*" >&2; }
die() { local code=$1; shift; say "$*"; exit "$code"; }

# ---- configuration (data, not code) ----------------------------------------
KEYS_ALLOWED="MTEBENCH_REMOTE MTEBENCH_BRANCH MTEBENCH_TAGS MTEBENCH_KEYS MTEBENCH_GNUPGHOME MTEBENCH_SIGNERS
MTEBENCH_HOME MTEBENCH_USER MTEBENCH_HISTORY MTEBENCH_ARGS MTEBENCH_RUN"
if [ "$CONFIG" = --from-env ]; then
    :   # re-executed after dropping root: the configuration is in the environment
elif [ -f "$CONFIG" ]; then
    lineno=0
    while IFS= read -r line || [ -n "$line" ]; do
        lineno=$((lineno + 1))
        case "$line" in ''|'#'*) continue ;; esac
        key=${line%%=*}; val=${line#*=}
        [ "$key" != "$line" ] || die 2 "$CONFIG:$lineno: not KEY=VALUE"
        case " $(echo $KEYS_ALLOWED) " in *" $key "*) ;; *) die 2 "$CONFIG:$lineno: unknown key '$key' (accepted: $(echo $KEYS_ALLOWED))" ;; esac
        val=${val#\"}; val=${val%\"}
        [ -n "${!key+x}" ] || export "$key=$val"   # the environment wins over the file
    done < "$CONFIG"
elif [ "$#" -gt 0 ]; then
    die 2 "no configuration file $CONFIG"
fi
: "${MTEBENCH_HOME:=/var/lib/mtebench}" "${MTEBENCH_USER:=mtebench}" "${MTEBENCH_ARGS:=}" "${MTEBENCH_RUN:=}"
: "${MTEBENCH_HISTORY:=$MTEBENCH_HOME/history.sqlite}"
: "${MTEBENCH_BRANCH:=}" "${MTEBENCH_TAGS:=}" "${MTEBENCH_KEYS:=}" "${MTEBENCH_GNUPGHOME:=}" "${MTEBENCH_SIGNERS:=}"
[ -n "${MTEBENCH_REMOTE:-}" ] || die 2 "MTEBENCH_REMOTE is not set"
if [ -n "$MTEBENCH_BRANCH" ] && [ -n "$MTEBENCH_TAGS" ] || [ -z "$MTEBENCH_BRANCH$MTEBENCH_TAGS" ]; then
    die 2 "set exactly one of MTEBENCH_BRANCH (a pinned branch) and MTEBENCH_TAGS (a signed tag pattern)"
fi
case "$MTEBENCH_BRANCH$MTEBENCH_TAGS" in
    refs/*|*pull/*|*merge-requests/*|*..*|*:*|*' '*|-*)
        die 2 "'$MTEBENCH_BRANCH$MTEBENCH_TAGS' is not a plain branch name or tag pattern (pull-request and other refs are never run)" ;;
esac
[ -n "$MTEBENCH_KEYS$MTEBENCH_GNUPGHOME" ] || die 2 "no trusted keys: set MTEBENCH_KEYS (a public key file) or MTEBENCH_GNUPGHOME"
# the remote as printed: without user:password@
REMOTE_SHOWN=$(printf '%s' "$MTEBENCH_REMOTE" | sed -E 's#(://)[^/@]*@#\1***@#')

# ---- never build or run as root ---------------------------------------------
if [ "$(id -u)" = 0 ]; then
    id "$MTEBENCH_USER" >/dev/null 2>&1 || die 2 "user $MTEBENCH_USER does not exist (make deps creates 'mtebench')"
    mkdir -p "$MTEBENCH_HOME" && chown "$MTEBENCH_USER:" "$MTEBENCH_HOME" || die 2 "cannot prepare $MTEBENCH_HOME"
    say "dropping root: continuing as $MTEBENCH_USER"
    exec setpriv --reuid="$MTEBENCH_USER" --regid="$(id -g "$MTEBENCH_USER")" --init-groups --no-new-privs \
        env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME="$MTEBENCH_HOME" \
        MTEBENCH_REMOTE="$MTEBENCH_REMOTE" MTEBENCH_BRANCH="$MTEBENCH_BRANCH" MTEBENCH_TAGS="$MTEBENCH_TAGS" \
        MTEBENCH_KEYS="$MTEBENCH_KEYS" MTEBENCH_GNUPGHOME="$MTEBENCH_GNUPGHOME" MTEBENCH_SIGNERS="$MTEBENCH_SIGNERS" \
        MTEBENCH_HOME="$MTEBENCH_HOME" MTEBENCH_USER="$MTEBENCH_USER" MTEBENCH_ARGS="$MTEBENCH_ARGS" \
        MTEBENCH_HISTORY="$MTEBENCH_HISTORY" \
        MTEBENCH_RUN="$MTEBENCH_RUN" bash "$0" --from-env
fi
export HOME="$MTEBENCH_HOME" GIT_TERMINAL_PROMPT=0 GIT_CONFIG_NOSYSTEM=1
mkdir -p "$MTEBENCH_HOME" || die 2 "cannot create $MTEBENCH_HOME"

# ---- the keyring ----------------------------------------------------------------
if [ -n "$MTEBENCH_KEYS" ]; then
    [ -r "$MTEBENCH_KEYS" ] || die 2 "cannot read the trusted keys $MTEBENCH_KEYS"
    GNUPGHOME=$(mktemp -d "${TMPDIR:-/tmp}/mtebench-runner-gpg.XXXXXX") || die 2 "no temporary directory"
    trap 'gpgconf --kill all >/dev/null 2>&1; rm -rf "$GNUPGHOME"' EXIT
    export GNUPGHOME
    gpg --batch --quiet --import "$MTEBENCH_KEYS" 2>/dev/null || die 2 "no usable key in $MTEBENCH_KEYS"
else
    export GNUPGHOME="$MTEBENCH_GNUPGHOME"
fi

# ---- fetch only the pinned branch or the tags --------------------------------------
SRC="$MTEBENCH_HOME/src"
if [ ! -d "$SRC/.git" ]; then
    git init -q "$SRC" || die 6 "cannot create $SRC"
fi
git -C "$SRC" config core.hooksPath /dev/null   # no hooks, whatever the checkout holds
if [ -n "$MTEBENCH_BRANCH" ]; then
    refspec="+refs/heads/$MTEBENCH_BRANCH:refs/remotes/pinned/$MTEBENCH_BRANCH"
else
    refspec="+refs/tags/$MTEBENCH_TAGS:refs/tags/$MTEBENCH_TAGS"
fi
git -C "$SRC" fetch -q --no-tags --no-recurse-submodules "$MTEBENCH_REMOTE" "$refspec" 2>"$MTEBENCH_HOME/fetch.err" ||
    { sed "s#$MTEBENCH_REMOTE#$REMOTE_SHOWN#g" "$MTEBENCH_HOME/fetch.err" >&2; die 6 "fetch from $REMOTE_SHOWN failed"; }

# ---- verify -------------------------------------------------------------------------
# check_signer RAW: the status output of gpg must hold a good, valid signature
# (and, if MTEBENCH_SIGNERS is set, by one of those fingerprints)
check_signer() {
    local raw=$1 fpr
    grep -q '^\[GNUPG:\] GOODSIG ' <<<"$raw" || return 1
    fpr=$(sed -n 's/^\[GNUPG:\] VALIDSIG \([0-9A-F]*\) .* \([0-9A-F]*\)$/\1 \2/p' <<<"$raw")
    [ -n "$fpr" ] || return 1
    [ -z "$MTEBENCH_SIGNERS" ] && return 0
    local s f
    for s in $MTEBENCH_SIGNERS; do for f in $fpr; do [ "${s^^}" = "$f" ] && return 0; done; done
    say "signed by $fpr, which is not in MTEBENCH_SIGNERS"
    return 1
}
if [ -n "$MTEBENCH_BRANCH" ]; then
    what="branch $MTEBENCH_BRANCH"
    obj=$(git -C "$SRC" rev-parse --verify -q "refs/remotes/pinned/$MTEBENCH_BRANCH^{commit}") || die 6 "no branch $MTEBENCH_BRANCH at $REMOTE_SHOWN"
    raw=$(git -C "$SRC" verify-commit --raw "$obj" 2>&1)
    rc=$?
    commit=$obj
else
    tag=$(git -C "$SRC" for-each-ref --sort=-creatordate --count=1 --format='%(refname:short)' "refs/tags/$MTEBENCH_TAGS")
    [ -n "$tag" ] || die 6 "no tag matching $MTEBENCH_TAGS at $REMOTE_SHOWN"
    what="tag $tag"
    obj=$(git -C "$SRC" rev-parse --verify -q "refs/tags/$tag") || die 6 "cannot resolve $tag"
    [ "$(git -C "$SRC" cat-file -t "$obj")" = tag ] || die 5 "$what is a lightweight tag: it carries no signature; refusing to run it"
    raw=$(git -C "$SRC" verify-tag --raw "$obj" 2>&1)
    rc=$?
    commit=$(git -C "$SRC" rev-parse --verify -q "$obj^{commit}") || die 6 "$what does not point to a commit"
fi
if [ "$rc" != 0 ] || ! check_signer "$raw"; then
    if grep -q 'NO_PUBKEY\|ERRSIG' <<<"$raw"; then why="signed by a key that is not trusted"
    elif grep -q 'BADSIG' <<<"$raw"; then why="bad signature"
    elif [ -z "$raw" ] || ! grep -q GNUPG <<<"$raw"; then why="not signed"
    else why="signature not accepted"; fi
    die 5 "$what ($commit): $why; refusing to run it"
fi
say "$what ($commit): good signature ($(sed -n 's/^\[GNUPG:\] GOODSIG [0-9A-F]* //p' <<<"$raw" | head -1))"

# ---- check out exactly the verified object, and run -------------------------------------
git -C "$SRC" -c advice.detachedHead=false checkout -q --force --detach "$commit" || die 6 "checkout of $commit failed"
git -C "$SRC" clean -q -ffdx -e build/ || die 6 "cleaning $SRC failed"
[ "$(git -C "$SRC" rev-parse HEAD)" = "$commit" ] || die 6 "checkout is not $commit"
cd "$SRC" || die 6 "no $SRC"
# a clean environment: nothing of the runner's (tokens, the remote URL, GNUPGHOME)
# reaches the build, the services or the reports
run_env=(env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 HOME="$MTEBENCH_HOME" MTEBENCH_NIGHTLY_COMMIT="$commit")
if [ -n "$MTEBENCH_RUN" ]; then
    "${run_env[@]}" bash -c "$MTEBENCH_RUN"
    exit $?
fi
"${run_env[@]}" make -s all || die 6 "build of $commit failed"
# shellcheck disable=SC2086
"${run_env[@]}" build/mtebench nightly --history "$MTEBENCH_HISTORY" --out "$MTEBENCH_HOME/dashboard" \
    --results "$MTEBENCH_HOME/results/$(date -u +%Y%m%d-%H%M%S)-$commit" $MTEBENCH_ARGS
exit $?
