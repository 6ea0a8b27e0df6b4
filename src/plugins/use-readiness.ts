import { type Plugin, useReadinessCheck } from 'graphql-yoga';

/**
 * GET /ready: 200 whenever the process serves requests, whatever the upstream's health. Taking
 * replicas out of the load balancer cannot make an unhealthy upstream answer; it would only turn
 * each caller's clear `UPSTREAM_UNAVAILABLE` into a connection error once every replica is out.
 * The upstream's health is shown by the circuit-state metric and the error codes instead.
 */
export function useReadiness(): Plugin {
  return useReadinessCheck({
    endpoint: '/ready',
    check: ({ fetchAPI }) => fetchAPI.Response.json({ status: 'ready' }),
  });
}
