import type { Dispatcher } from 'undici';

/** Where a call's dispatch options hold what is told once its request goes onto a connection (`sendingInterceptor`). */
export const ON_SENT = Symbol('told once the request goes onto a connection');

/** Dispatch options that may ask to be told when their request is sent. */
type SendingOptions = Dispatcher.DispatchOptions & { [ON_SENT]?: () => void };

/**
 * Tells a call (its dispatch options' `ON_SENT`) when its request goes onto a connection to the
 * upstream: undici hands it to an open socket (`onRequestStart`, its `onConnect`) and writes it
 * there and then, unless it was aborted meanwhile. Before that moment nothing of the request has
 * left the gateway, so a failure then (no connection made, refused or timed out; the call aborted
 * while it waited for a socket of the pool) is one the upstream never saw. After it, the upstream may
 * have received the request, even when no answer came back: a write then may have been done.
 * Composed inside the retry interceptor, so that it sees every attempt (a write has only one).
 */
export const sendingInterceptor: Dispatcher.DispatcherComposeInterceptor = (dispatch) => (opts, handler) => {
  const onSent = (opts as SendingOptions)[ON_SENT];
  if (!onSent) return dispatch(opts, handler);
  return dispatch(opts, {
    onRequestStart: (controller, context) => {
      handler.onRequestStart?.(controller, context);
      if (!controller.aborted) onSent();
    },
    onRequestUpgrade: (controller, statusCode, headers, socket) => handler.onRequestUpgrade?.(controller, statusCode, headers, socket),
    onResponseStart: (controller, statusCode, headers, statusMessage) =>
      handler.onResponseStart?.(controller, statusCode, headers, statusMessage),
    onResponseData: (controller, chunk) => handler.onResponseData?.(controller, chunk),
    onResponseEnd: (controller, trailers) => handler.onResponseEnd?.(controller, trailers),
    onResponseError: (controller, error) => handler.onResponseError?.(controller, error),
  });
};
