import type { DailySpend } from '../../domain/credits/daily-spend';
import { html, type SafeHtml } from './html';

/**
 * Credits spent per day as an inline SVG bar chart drawn on the server (no
 * chart library, no script), with the same numbers as a table for screen
 * readers and for anyone who wants the figures.
 */
export function spendChart(days: DailySpend[]): SafeHtml {
  const W = 600;
  const H = 160;
  const top = 10;
  const bottom = 22;
  const max = Math.max(1, ...days.map((d) => d.credits));
  const slot = W / days.length;
  const barW = Math.max(2, slot - 4);
  const total = days.reduce((n, d) => n + d.credits, 0);
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';
  return html`<figure class="chart">
      <svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="chart-title chart-desc" preserveAspectRatio="none" class="bars">
        <title id="chart-title">Credits spent per day, last ${days.length} days</title>
        <desc id="chart-desc">
          ${total} credits spent from ${first} to ${last}; the most in one day was ${Math.max(0, ...days.map((d) => d.credits))}.
        </desc>
        <line x1="0" y1="${H - bottom}" x2="${W}" y2="${H - bottom}" class="axis"></line>
        ${days.map((d, i) => {
          const h = Math.round(((H - top - bottom) * d.credits) / max);
          return html`<rect x="${(i * slot + 2).toFixed(1)}" y="${H - bottom - h}" width="${barW.toFixed(1)}" height="${h}" class="bar"
            ><title>${d.day}: ${d.credits} credits</title></rect
          >`;
        })}
        <text x="0" y="${H - 6}" class="label">${first}</text>
        <text x="${W}" y="${H - 6}" text-anchor="end" class="label">${last}</text>
      </svg>
      <figcaption>${total} credits spent in the last ${days.length} days (busiest day: ${max === 1 && total === 0 ? 0 : max}).</figcaption>
    </figure>
    <details>
      <summary>The same figures as a table</summary>
      <table>
        <caption>
          Credits spent per day
        </caption>
        <thead>
          <tr>
            <th scope="col">Day (UTC)</th>
            <th scope="col">Credits</th>
          </tr>
        </thead>
        <tbody>
          ${days.map(
            (d) =>
              html`<tr>
                <td>${d.day}</td>
                <td>${d.credits}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </details>`;
}
