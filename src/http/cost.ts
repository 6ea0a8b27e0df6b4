/** Whether a request asks to see what its operations cost (`X-Cost: 1`): that value alone, anything else asks nothing. */
export const asksCost = (header: string | null): boolean => header?.trim() === '1';
