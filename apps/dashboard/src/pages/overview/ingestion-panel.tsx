import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../../api/client';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import { count, percent } from '../../components/format';
import { Badge, ErrorState, Loading } from '../../components/states';
import { TableScroll } from '../../components/table-scroll';
import { ingestionTotals, rejectedSeries } from './ingestion-summary';

/** What every ingestion route accepted and refused in the window, per sending library. */
export function IngestionPanel({ bucket }: { bucket: 'hour' | 'day' }) {
  const stats = useQuery({ queryKey: ['ingestion', bucket], queryFn: () => api.events.ingestion({ query: { bucket } }) });
  const totals = useMemo(() => (stats.data ? ingestionTotals(stats.data) : []), [stats.data]);
  const rejected = useMemo(() => (stats.data ? rejectedSeries(stats.data) : null), [stats.data]);
  const rejectedTotal = totals.reduce((sum, row) => sum + row.rejected, 0);
  const receivedTotal = totals.reduce((sum, row) => sum + row.accepted + row.duplicates + row.rejected, 0);
  return (
    <section aria-labelledby="ingestion-heading" className="panel">
      <h2 id="ingestion-heading">Ingestion and rejections</h2>
      {stats.isPending && <Loading what="ingestion figures" />}
      {stats.isError && <ErrorState error={stats.error} retry={() => void stats.refetch()} />}
      {stats.data && receivedTotal === 0 && <p className="muted">Nothing was received in this window.</p>}
      {stats.data && receivedTotal > 0 && (
        <>
          <p>
            {rejectedTotal === 0 ? (
              <Badge tone="good">No rejections</Badge>
            ) : (
              <Badge tone={rejectedTotal / receivedTotal > 0.05 ? 'bad' : 'fair'}>{count(rejectedTotal)} rejected</Badge>
            )}{' '}
            of {count(receivedTotal)} events received in this window ({percent(rejectedTotal / receivedTotal)}). Rejected events failed validation (a whole refused batch, or a skipped
            Segment message) and were not stored: the sender has a bug to fix.
          </p>
          {rejected && rejected.series.length > 0 && <TimeSeriesChart label={`Rejected events per ${bucket}, by sending library`} times={rejected.times} series={rejected.series} stacked yLabel="rejected" />}
          <TableScroll label="Events received per sending library">
            <table>
              <caption className="visually-hidden">Events received per sending library</caption>
              <thead>
                <tr>
                  <th scope="col">Sending library</th>
                  <th scope="col">Accepted</th>
                  <th scope="col">Duplicates</th>
                  <th scope="col">Rejected</th>
                </tr>
              </thead>
              <tbody>
                {totals.map((row) => (
                  <tr key={row.library}>
                    <th scope="row">
                      <code>{row.library}</code>
                    </th>
                    <td>{count(row.accepted)}</td>
                    <td>{count(row.duplicates)}</td>
                    <td>{count(row.rejected)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
          <p className="help">&quot;direct&quot; is a call that named no SDK; &quot;other&quot; an SDK Foresight does not know.</p>
        </>
      )}
    </section>
  );
}
