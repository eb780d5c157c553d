import { z } from 'zod';

/** A `value` model's expected sum and interval: in served predictions and in exported ones alike. */
export const valueEstimateFields = {
  value: z.number().optional().describe('value models: the expected sum of valueProperty over the horizon (label and confidence answer whether there is any)'),
  interval: z
    .object({ p10: z.number(), p90: z.number() })
    .optional()
    .describe('value models: the 10th and 90th percentiles of the sum (0 when the user is unlikely to have any)'),
};
