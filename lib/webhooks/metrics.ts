/** The namespace of the webhooks' EMF metrics: Deliveries, Failures, Retries, Lag (commit to delivery), Disabled, DispatchLag, DueJobs. */
export const WEBHOOKS_NAMESPACE = 'StoreApi/Webhooks';
