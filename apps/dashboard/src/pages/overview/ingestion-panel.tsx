import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { api } from '../../api/client';
import { TimeSeriesChart } from '../../charts/time-series-chart';
import { DataTable } from '../../components/data-table';
import { count, percent } from '../../components/format';
import { Badge, ErrorState, Loading } from '../../components/states';
import { ingestionTotals, rejectedSeries } from './ingestion-summary';

/** What every ingestion route accepted and refused in the window, per sending library, counted by arrival (not by when events happened). */
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
      {stats.data && receivedTotal === 0 && <p className="muted">Nothing arrived in this window (these figures count events by when they were received, not when they happened).</p>}
      {stats.data && receivedTotal > 0 && (
        <>
          <p>
            {rejectedTotal === 0 ? (
              <Badge tone="good">No rejections</Badge>
            ) : (
              <Badge tone={rejectedTotal / receivedTotal > 0.05 ? 'bad' : 'fair'}>{count(rejectedTotal)} rejected</Badge>
            )}{' '}
            of {count(receivedTotal)} events received in this window, counted by when they arrived ({percent(rejectedTotal / receivedTotal)}). Rejected events failed validation (a whole refused batch, or a skipped
            Segment message) and were not stored: the sender has a bug to fix.
          </p>
          {rejected && rejected.series.length > 0 && <TimeSeriesChart label={`Rejected events per ${bucket}, by sending library`} times={rejected.times} series={rejected.series} stacked yLabel="rejected" />}
          <DataTable label="Events received per sending library" name="Events received per sending library" columns={['Sending library', 'Accepted', 'Duplicates', 'Rejected']}>
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
          </DataTable>
          <p className="help">&quot;direct&quot; is a call that named no SDK; &quot;other&quot; an SDK Foresight does not know.</p>
        </>
      )}
    </section>
  );
}
