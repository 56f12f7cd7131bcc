import { loadHtml } from './cheerio.ts';
import { asArray, fragment, hasType, str } from './json-ld.ts';
import type { ParsedPage } from './page.ts';
import { clean, truncate } from './text.ts';
import type { Evidence, Faq } from './types.ts';

export const MAX_FAQS = 10;
const MAX_QUESTION = 200;
const MAX_ANSWER = 1000;

export interface FaqsResult {
  faqs: Faq[];
  evidence: Evidence | null;
}

/** FAQs from JSON-LD FAQPage, else visible Q&A (details/summary, dl, "?" headings); FAQ pages first. */
export function extractFaqs(pages: ParsedPage[]): FaqsResult {
  const ordered = [...pages].sort((a, b) => faqRank(a.url) - faqRank(b.url));
  const faqs: Faq[] = [];
  const seen = new Set<string>();
  let evidence: Evidence | null = null;
  const add = (q: string, a: string, ev: Evidence) => {
    const question = truncate(q, MAX_QUESTION);
    const answer = truncate(a, MAX_ANSWER);
    if (question.length < 3 || !answer || faqs.length >= MAX_FAQS) return;
    const key = question.toLowerCase();
    if (seen.has(key)) return;
    seen.add(key);
    faqs.push({ question, answer });
    evidence ??= ev;
  };

  // Structured data first, from every page.
  for (const page of ordered) {
    for (const node of page.jsonLd) {
      if (!hasType(node, 'FAQPage')) continue;
      for (const q of asArray(node.mainEntity)) {
        if (!hasType(q, 'Question')) continue;
        const qn = q as Record<string, unknown>;
        const question = clean(str(qn.name) ?? str(qn.text));
        const answerNode = asArray(qn.acceptedAnswer)[0] ?? asArray(qn.suggestedAnswer)[0];
        const answer = htmlToText(str(answerNode, 'text') ?? '');
        if (question && answer) add(question, answer, { source_url: page.url, snippet: fragment('mainEntity', { name: question }) });
      }
    }
  }
  if (faqs.length) return { faqs, evidence };

  for (const page of ordered) {
    const { $ } = page;
    const ev = (q: string) => ({ source_url: page.url, snippet: truncate(q, 200) });
    $('details').each((_, el) => {
      const summary = $(el).children('summary').first();
      if (!summary.length) return;
      const q = clean(summary.text());
      const a = clean($(el).clone().children('summary').remove().end().text());
      if (looksLikeQuestion(q)) add(q, a, ev(q));
    });
    $('dl').each((_, dl) => {
      $(dl)
        .children('dt')
        .each((_, dt) => {
          const q = clean($(dt).text());
          const dd = $(dt).nextAll('dd').first();
          if (looksLikeQuestion(q) && dd.length) add(q, clean(dd.text()), ev(q));
        });
    });
    $('h2, h3, h4, h5, h6, strong, b, button').each((_, h) => {
      const q = clean($(h).text());
      if (!q.endsWith('?') || q.length > MAX_QUESTION + 50) return;
      const answerParts: string[] = [];
      // The answer: following siblings up to the next heading; for inline tags, the parent's siblings.
      let anchor = $(h);
      if (['strong', 'b', 'button'].includes(h.tagName)) {
        if (clean(anchor.parent().text()) !== q) return;
        anchor = anchor.parent();
      }
      let next = anchor.next();
      while (next.length && answerParts.join(' ').length < MAX_ANSWER) {
        const tag = next.get(0)?.tagName ?? '';
        if (/^h[1-6]$/.test(tag) || tag === 'details' || tag === 'dl') break;
        if (clean(next.text()).endsWith('?') && next.find('h2,h3,h4,h5,h6,strong,b').length) break;
        const t = clean(next.text());
        if (t) answerParts.push(t);
        next = next.next();
      }
      if (answerParts.length) add(q, answerParts.join(' '), ev(q));
    });
    if (faqs.length >= MAX_FAQS) break;
  }
  return { faqs, evidence };
}

function looksLikeQuestion(q: string): boolean {
  return q.length >= 3 && (q.endsWith('?') || /^(how|what|why|when|where|who|which|can|do|does|is|are|will|should)\b/i.test(q));
}

function faqRank(url: string): number {
  return /faq|question|help|support/i.test(URL.parse(url)?.pathname ?? '') ? 0 : 1;
}

function htmlToText(s: string): string {
  if (!/[<&]/.test(s)) return clean(s);
  try {
    return clean(loadHtml(`<div>${s}</div>`)('div').first().text());
  } catch {
    return clean(s);
  }
}
