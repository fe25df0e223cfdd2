/**
 * The common names of the certificates one component shows another, where the peer checks the name: the
 * operator issues them, the roles require them (KubeVirt's components/secrets.go populationStrategy names the
 * handler's two; the fork's kube-api-rewriter sidecar is the api's webhook caller).
 */

/** What the api shows a handler's REST server, and the handler requires (`--client-common-name`). */
export const HANDLER_CLIENT_CN = 'kubevirt.io:system:client:virt-handler';
/** What a handler's REST server shows the api, which dials node addresses and checks this name instead. */
export const HANDLER_SERVER_CN = 'kubevirt.io:system:node:virt-handler';
/** What the api Pod's rewriter sidecar shows the api when it forwards admission reviews. */
export const REWRITER_CLIENT_CN = 'kube-api-rewriter';
