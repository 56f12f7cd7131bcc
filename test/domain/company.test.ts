import test from 'ava';
import { companyKey, companyOf, registrableDomain, sameCompany } from '../../src/domain/company.ts';
import { emailClaimDomain, emailClaimRefusal } from '../../src/domain/claims/email-domain.ts';

/** Company identity: the public suffix list with its private section; IPs per address and port. */

test('subdomains of a private-section suffix are companies of their own', (t) => {
  t.not(companyKey('https://acme.vercel.app/'), companyKey('https://zeta.vercel.app/'));
  t.is(companyKey('https://acme.vercel.app/'), 'acme.vercel.app');
  t.is(companyKey('https://www.acme.vercel.app/pricing'), 'acme.vercel.app');
  t.not(companyKey('https://a.github.io/'), companyKey('https://b.github.io/'));
  t.is(companyKey('https://a.github.io/'), 'a.github.io');
  t.false(sameCompany('https://a.github.io/', 'https://b.github.io/x'));
  t.true(sameCompany('https://a.github.io/', 'https://docs.a.github.io/'));
});

test('ICANN domains: the registrable domain, whatever the subdomain, scheme, port or case', (t) => {
  t.is(companyKey('https://www.Acme.co.uk/'), 'acme.co.uk');
  t.is(companyKey('http://shop.acme.co.uk:8080/x'), 'acme.co.uk');
  t.is(companyKey('https://acme.com./'), 'acme.com');
  t.true(sameCompany('https://acme.com/', 'http://blog.acme.com/'));
  t.false(sameCompany('https://acme.com/', 'https://acme.co.uk/'));
});

test('a website given by an IP address is one company per address and port', (t) => {
  t.is(companyKey('http://127.0.0.1:4001/'), '127.0.0.1:4001');
  t.not(companyKey('http://127.0.0.1:4001/'), companyKey('http://127.0.0.1:4002/'));
  t.true(sameCompany('http://127.0.0.1:4001/', 'http://127.0.0.1:4001/about'));
  t.false(sameCompany('http://10.0.0.1/', 'https://10.0.0.1/'), 'ports 80 and 443');
  t.is(companyKey('http://10.0.0.1/'), '10.0.0.1:80');
  t.is(companyKey('http://[::1]:8080/'), '[::1]:8080');
  t.not(companyKey('http://[::1]:8080/'), companyKey('http://[::1]:8081/'));
  // A bare name has no registrable domain either: per host and port too.
  t.not(companyKey('http://localhost:3000/'), companyKey('http://localhost:4000/'));
});

test('companyOf names the private suffix; registrableDomain is null without a domain', (t) => {
  t.like(companyOf('https://acme.vercel.app/'), { domain: 'acme.vercel.app', privateSuffix: 'vercel.app', isIp: false });
  t.like(companyOf('https://acme.com/'), { domain: 'acme.com', privateSuffix: null });
  t.like(companyOf('http://127.0.0.1:9/'), { domain: null, privateSuffix: null, isIp: true });
  t.is(registrableDomain('docs.acme.github.io'), 'acme.github.io');
  t.is(registrableDomain('127.0.0.1'), null);
  t.is(registrableDomain('github.io'), null);
});

test('email claims are refused under a private suffix, with a reason naming dns, meta and file', (t) => {
  for (const url of ['https://acme.vercel.app/', 'https://a.github.io/', 'http://127.0.0.1:8080/', 'https://gmail.com/']) {
    const reason = emailClaimRefusal(url);
    t.truthy(reason, url);
    t.regex(reason!, /dns, meta or file/, url);
  }
  t.regex(emailClaimRefusal('https://acme.vercel.app/')!, /vercel\.app/);
  t.is(emailClaimRefusal('https://www.acme.co.uk/'), null);
  t.is(emailClaimDomain('https://www.acme.co.uk/'), 'acme.co.uk');
});
