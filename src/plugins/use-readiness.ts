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
  return useReadinessCheck({
    endpoint,
    check: ({ fetchAPI }) => fetchAPI.Response.json({ status: 'ready' }),
  });
}
