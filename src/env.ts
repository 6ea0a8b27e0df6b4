import { z } from 'zod';

/** An environment variable holding a whole number from min to max; the message completes "NAME ...". */
export const wholeNumber = (min: number, max: number, message = `must be a whole number from ${min} to ${max}`) =>
  z
    .string()
    .regex(/^\d+$/, message)
    .transform(Number)
    .refine((n) => n >= min && n <= max, message);

/** An environment variable holding true or false. */
export const flag = z.enum(['true', 'false'], 'must be true or false').transform((v) => v === 'true');
