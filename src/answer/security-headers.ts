/** On every answer, those written before Yoga included: a browser never guesses a type the answer does not declare. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = { 'x-content-type-options': 'nosniff' };

/**
 * GraphiQL's page holds a header editor with the caller's token: no other site may frame it
 * (clickjacking), and it runs only the gateway's own scripts, which it serves as static files.
 * Styles are the gateway's stylesheets and the inline `style` attributes Monaco writes at run
 * time, hence 'unsafe-inline' for styles alone (docs/clients.md, section Browser apps, says why).
 */
export const HTML_PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self'",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};
