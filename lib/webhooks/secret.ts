import { randomBytes } from 'node:crypto';

/** A subscription's secret (Standard Webhooks): `whsec_` + base64 of 32 random bytes. Apart from the signing library, which only the worker loads. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
