#!/usr/bin/env bash
# Prints the home of a JDK >= 21. Order: $JAVA_HOME, then /usr/lib/jvm/*, newest first.
# Exits non-zero with a clear message when none is found: the build targets Java 21.
set -u
version_of() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1; }
ok() { [ -x "$1/bin/javac" ] && v=$(version_of "$1") && [ -n "$v" ] && [ "$v" -ge 21 ]; }
if [ -n "${JAVA_HOME:-}" ] && ok "$JAVA_HOME"; then echo "$JAVA_HOME"; exit 0; fi
for d in $(ls -d /usr/lib/jvm/*/ 2>/dev/null | sed 's:/$::' | sort -rV); do
  if ok "$d"; then echo "$d"; exit 0; fi
done
echo "error: no JDK >= 21 found (set JAVA_HOME, or install one under /usr/lib/jvm)" >&2
exit 1
