#!/bin/bash
# The nightly runner runs only what a trusted key signed: with a throwaway
# GPG key in a temporary GNUPGHOME and a temporary git remote, it refuses an
# unsigned commit, a commit signed by another key, a lightweight tag and a
# pull-request ref, and runs a correctly signed commit and tag (as the
# unprivileged user, with a clean environment).
. "$(dirname "$0")/../../lib.sh"
R="$ROOT/contrib/nightly-runner.sh"
command -v gpg >/dev/null || skip_all "gpg not installed (make deps)"
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org
chmod 755 "$T_TMP"

# two throwaway keys: "good" (trusted by the runner) and "other" (not)
SIGN="$T_TMP/signer-gpg"; mkdir -m 700 "$SIGN"
gen() { GNUPGHOME="$SIGN" gpg --batch --quiet --passphrase '' --quick-gen-key "$1 <$1@example.org>" ed25519 sign never >/dev/null 2>&1
        GNUPGHOME="$SIGN" gpg --batch --with-colons --list-keys "$1@example.org" 2>/dev/null | awk -F: '/^fpr/{print $10; exit}'; }
GOOD=$(gen good); OTHER=$(gen other)
ok "$([ -n "$GOOD" ] && [ -n "$OTHER" ]; echo $?)" "two throwaway keys made"
GNUPGHOME="$SIGN" gpg --batch --export --armor "$GOOD" > "$T_TMP/trusted.asc"

# the remote, and a working copy that pushes to it
git init -q --bare "$T_TMP/remote.git"
git init -q -b main "$T_TMP/w"
# the remote belongs to the runner's user; pushes as root accept that (test-only global config)
printf '[safe]\n\tdirectory = *\n' > "$T_TMP/gitconfig"
W() { GIT_CONFIG_GLOBAL="$T_TMP/gitconfig" GNUPGHOME="$SIGN" git -C "$T_TMP/w" "$@"; }
commit() { # commit MSG [KEY]: a commit whose run marks what ran
    printf 'echo "ran $(git rev-parse HEAD) as $(id -un) home=$HOME secret=${SECRET_TOKEN:-none}" > "$MARK"\n' > "$T_TMP/w/run.sh"
    echo "$1" > "$T_TMP/w/msg"; W add -A
    if [ -n "${2:-}" ]; then W -c user.signingkey="$2" commit -q -S -m "$1"; else W commit -q -m "$1"; fi
    W push -q -f "$T_TMP/remote.git" HEAD:refs/heads/main
    W rev-parse HEAD
}
chown -R mtebench: "$T_TMP/remote.git" 2>/dev/null   # the runner reads it as mtebench
MARK="$T_TMP/state/ran"
cat > "$T_TMP/runner.conf" <<EOC
# test configuration
MTEBENCH_REMOTE=$T_TMP/remote.git
MTEBENCH_BRANCH=main
MTEBENCH_KEYS=$T_TMP/trusted.asc
MTEBENCH_HOME=$T_TMP/state
MTEBENCH_RUN=MARK=$MARK bash run.sh
EOC
run() { rm -f "$MARK"; SECRET_TOKEN=hunter2 bash "$R" "$@" > "$T_TMP/out" 2>&1; echo $?; }

c1=$(commit "unsigned")
is "$(run "$T_TMP/runner.conf")" 5 "unsigned commit refused (exit 5)" || dump "$T_TMP/out"
ok "$(grep -q 'not signed; refusing' "$T_TMP/out"; echo $?)" "says it is not signed"
ok "$([ ! -e "$MARK" ]; echo $?)" "nothing ran"

c2=$(commit "signed by another key" "$OTHER")
is "$(run "$T_TMP/runner.conf")" 5 "commit signed by an untrusted key refused" || dump "$T_TMP/out"
ok "$(grep -q 'not trusted; refusing' "$T_TMP/out"; echo $?)" "says the key is not trusted"
ok "$([ ! -e "$MARK" ]; echo $?)" "nothing ran"

c3=$(commit "signed by the trusted key" "$GOOD")
is "$(run "$T_TMP/runner.conf")" 0 "commit signed by the trusted key runs" || dump "$T_TMP/out"
ok "$(grep -q "^ran $c3 as mtebench " "$MARK"; echo $?)" "ran exactly the verified commit, as user mtebench" || dump "$MARK"
ok "$(grep -q 'secret=none' "$MARK"; echo $?)" "the runner's environment (a token) does not reach the run"

# a restriction to other signers refuses even the trusted key
is "$(MTEBENCH_SIGNERS=$OTHER run "$T_TMP/runner.conf")" 5 "MTEBENCH_SIGNERS excludes the signer: refused" || dump "$T_TMP/out"

# a pull request's ref on the remote is neither fetched nor run
W -c user.signingkey="$GOOD" commit -q --allow-empty -S -m "pull request"
W push -q -f "$T_TMP/remote.git" HEAD:refs/pull/1/head
is "$(run "$T_TMP/runner.conf")" 0 "with a pull request on the remote, main still runs"
ok "$(grep -q "^ran $c3 " "$MARK" && ! git -C "$T_TMP/state/src" cat-file -e "$(W rev-parse HEAD)" 2>/dev/null; echo $?)" \
    "the pull request's commit was not even fetched"
sed 's/^MTEBENCH_BRANCH=main$/MTEBENCH_BRANCH=refs\/pull\/1\/head/' "$T_TMP/runner.conf" > "$T_TMP/pr.conf"
is "$(run "$T_TMP/pr.conf")" 2 "a pull-request ref as the branch is refused as configuration"

# tags: a lightweight tag is refused, a signed tag runs
sed 's/^MTEBENCH_BRANCH=main$/MTEBENCH_TAGS=nightly-*/' "$T_TMP/runner.conf" > "$T_TMP/tags.conf"
W tag nightly-1 "$c1"; W push -q "$T_TMP/remote.git" refs/tags/nightly-1
is "$(run "$T_TMP/tags.conf")" 5 "lightweight (unsigned) tag refused"
sleep 1.1   # tags sorted by date: the next one is newer
W -c user.signingkey="$GOOD" tag -s -m "nightly 2" nightly-2 "$c3"; W push -q "$T_TMP/remote.git" refs/tags/nightly-2
is "$(run "$T_TMP/tags.conf")" 0 "signed tag runs" || dump "$T_TMP/out"
ok "$(grep -q "^ran $c3 " "$MARK"; echo $?)" "at the tagged commit"
sleep 1.1
W -c user.signingkey="$OTHER" tag -s -m "nightly 3" nightly-3 "$c2"; W push -q "$T_TMP/remote.git" refs/tags/nightly-3
is "$(run "$T_TMP/tags.conf")" 5 "tag signed by an untrusted key refused"

printf 'MTEBENCH_REMOTE=x\nrm -rf /\n' > "$T_TMP/bad.conf"
is "$(run "$T_TMP/bad.conf")" 2 "a configuration line that is not KEY=VALUE is refused, not executed"
done_testing
