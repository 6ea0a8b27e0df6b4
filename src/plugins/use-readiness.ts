import { type Plugin, useReadinessCheck } from 'graphql-yoga';

export interface ReadinessOptions {
  /** The path answered. @default '/ready' */
  endpoint?: string;
}

/**
 * GET /ready: 200 whenever the process serves requests, whatever the upstream's health. Taking
 * replicas out of the load balancer cannot make an unhealthy upstream answer; it would only turn
 * each caller's clear `UPSTREAM_UNAVAILABLE` into a connection error once every replica is out.
 * The upstream's health is shown by the circuit-state metric and the error codes instead.
 */
export function useReadiness({ endpoint = '/ready' }: ReadinessOptions = {}): Plugin {
  const yoga = useReadinessCheck({ endpoint, check: ({ fetchAPI }) => fetchAPI.Response.json({ status: 'ready' }) });
  return {
    // Yoga's plugin answers any URL that ends in the endpoint, `/graphql?x=/ready` included: only the path itself is ours.
    onRequest: (payload) => (payload.url.pathname === endpoint ? yoga.onRequest?.(payload) : undefined),
  };
}
