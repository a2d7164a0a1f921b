# The out-of-cluster operator of `make run` and `make operator-run` (sourced by operator-run.sh and
# kube-lib.sh, not run):
#   operator_command   sets OPERATOR_COMMAND: its command line, the shared JVM options first, then
#                      this instance's (the HTTP port)
#   operator_ready     its readiness answers (the controllers are started)
#   operator_pid       the pid operator-run.sh --background recorded, if that process is our operator
#   stop_operator      stops exactly that process (SIGTERM, SIGKILL after the shared grace)
# State: .local/operator/operator.pid, log .local/operator/operator.log. HTTP (health, metrics) on 9191.

# How the operator is launched (jar, JVM options, readiness, timeouts) is read from the file the tests'
# PackagedApp reads too (process-lib.sh's app_setting); only the instance's settings are added here.
# The rest of the instance (kubeconfig, leader election, load-test runner) is operator-run.sh's
# environment.

VIGIL_ROOT="${VIGIL_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
. "$(dirname "${BASH_SOURCE[0]}")/process-lib.sh"
OPERATOR_STATE="$VIGIL_ROOT/.local/operator"
OPERATOR_PIDFILE="$OPERATOR_STATE/operator.pid"
OPERATOR_LOG="$OPERATOR_STATE/operator.log"
OPERATOR_JAR_PATH="$(app_setting operator jar)"
OPERATOR_JAR="$VIGIL_ROOT/$OPERATOR_JAR_PATH"
OPERATOR_HTTP_PORT="${VIGIL_OPERATOR_HTTP_PORT:-9191}"
OPERATOR_READY_URL="http://127.0.0.1:$OPERATOR_HTTP_PORT$(app_setting operator ready.path)"

operator_pid() { recorded_pid "$OPERATOR_PIDFILE" "$OPERATOR_JAR_PATH"; }

operator_ready() { curl -fsS -o /dev/null --max-time 2 "$OPERATOR_READY_URL" 2>/dev/null; }

operator_command() {
  app_command operator -Dquarkus.http.port="$OPERATOR_HTTP_PORT" || return 1
  OPERATOR_COMMAND=("${APP_COMMAND[@]}")
}

stop_operator() {
  stop_background operator "$OPERATOR_PIDFILE" "$OPERATOR_JAR_PATH" "$(app_setting operator stop.grace.seconds)"
}
