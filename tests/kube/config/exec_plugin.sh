#!/bin/sh
# A client-go credential plugin for the tests, run as `sh exec_plugin.sh ARGS...`. Its
# behaviour comes from the environment the kubeconfig's exec.env gives it:
#   NW_EXEC_TOKEN        the token it returns
#   NW_EXEC_EXPIRY       an expirationTimestamp to return, if set
#   NW_EXEC_API_VERSION  the apiVersion it answers with (default v1)
#   NW_EXEC_MODE         fail | garbage | hang | cert
#   NW_EXEC_RECORD       a file to append KUBERNETES_EXEC_INFO and the arguments to
if [ -n "$NW_EXEC_RECORD" ]; then
  printf 'info=%s\nargs=%s\n' "$KUBERNETES_EXEC_INFO" "$*" >> "$NW_EXEC_RECORD"
fi
case "$NW_EXEC_MODE" in
  fail)
    echo "exec_plugin.sh: failing on purpose" >&2
    printf '{"status":{"token":"%s"}}' "$NW_EXEC_TOKEN"
    exit 3
    ;;
  garbage)
    printf 'not json: %s' "$NW_EXEC_TOKEN"
    exit 0
    ;;
  hang)
    exec sleep 600
    ;;
  cert)
    printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"clientCertificateData":"CERT","clientKeyData":"KEY"}}\n' \
      "${NW_EXEC_API_VERSION:-client.authentication.k8s.io/v1}"
    exit 0
    ;;
esac
expiry=""
if [ -n "$NW_EXEC_EXPIRY" ]; then
  expiry=",\"expirationTimestamp\":\"$NW_EXEC_EXPIRY\""
fi
printf '{"apiVersion":"%s","kind":"ExecCredential","status":{"token":"%s"%s}}\n' \
  "${NW_EXEC_API_VERSION:-client.authentication.k8s.io/v1}" "$NW_EXEC_TOKEN" "$expiry"
