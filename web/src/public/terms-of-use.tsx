import { useId, type ReactNode } from 'react';

/**
 * The constants of docs/behaviour.md#limits-and-constants ("Terms"), in one place so the text below
 * cannot drift from them.
 */
const MINIMUM_AGE = 18;
const LIABILITY_CAP = 'US$1,000 (one thousand United States dollars)';
const NOTICE_STEPS_DAYS = [30, 60, 90] as const;
const CLAIM_LIMIT = 'one (1) year';
const GOVERNING_LAW = 'the State of Delaware';

/**
 * docs/behaviour.md#terms-of-use: risk disclosures, fees per a fee
 * schedule, no personal data collected, minimum age 18, sanctions warranties,
 * special requests only by contacting the provider, and arbitration with a
 * one-year claim limit. The page around it supplies the h1; the text starts at
 * h2 and numbers its sections so they can be cited ("section 13.2").
 */
export function TermsOfUse({ contactEmail }: { contactEmail?: string }) {
  const titleId = useId();
  const [firstStep, secondStep, thirdStep] = NOTICE_STEPS_DAYS;
  const contact: ReactNode = contactEmail ? (
    <a href={`mailto:${contactEmail}`}>{contactEmail}</a>
  ) : (
    'the contact address published on the Service'
  );

  return (
    <article className="terms" aria-labelledby={titleId}>
      <h2 id={titleId}>Slipstream Terms of Use</h2>
      <p className="terms-lead">
        Please read these Terms of Use carefully. They are a binding agreement between you and the operator of Slipstream
        (&ldquo;Provider&rdquo;, &ldquo;we&rdquo;, &ldquo;us&rdquo;). Section 14 requires disputes to be resolved by
        individual arbitration, not in court, and section 14.5 bars claims brought more than {CLAIM_LIMIT} after they arise.
      </p>

      <section>
        <h3>1. Acceptance of these Terms</h3>
        <p>
          1.1 By submitting a transaction, opening a status link or otherwise using the Slipstream website, its application
          programming interface or any related service (together, the &ldquo;Service&rdquo;), you accept these Terms. If you
          do not accept them, do not use the Service.
        </p>
        <p>
          1.2 If you use the Service for a company or other organisation, you confirm that you may bind it to these Terms,
          and &ldquo;you&rdquo; then means both you and that organisation.
        </p>
        <p>
          1.3 We may change these Terms from time to time. The version shown on the Service when you submit a transaction
          applies to that transaction. Continuing to use the Service after a change means you accept the changed Terms.
        </p>
      </section>

      <section>
        <h3>2. Eligibility</h3>
        <p>
          2.1 You must be at least {MINIMUM_AGE} years old, and of legal age to form a binding contract where you live, to
          use the Service. By using it you confirm that you are.
        </p>
        <p>
          2.2 You may not use the Service where doing so is unlawful for you, or if we have previously suspended or blocked
          your use of it.
        </p>
      </section>

      <section>
        <h3>3. What the Service does</h3>
        <p>
          3.1 The Service accepts signed Bitcoin transactions, singly or as a package of comma-separated transactions, and
          passes them to the mempool of the mining pool we operate. A transaction is accepted only if it follows
          Bitcoin&apos;s consensus rules, passes our node&apos;s checks and meets our minimum fee threshold, which we may
          change at any time.
        </p>
        <p>
          3.2 Acceptance into the mempool is not a promise that a transaction will be mined, in any block or by any time. A
          transaction can be mined only in a block our pool finds, and may be displaced by transactions paying more,
          replaced, expired or evicted.
        </p>
        <p>
          3.3 We do not broadcast submitted transactions to other nodes or pools. A transaction stays private until it is
          mined, after which it is public on the Bitcoin blockchain like any other.
        </p>
        <p>
          3.4 Replace-by-fee is supported for a new transaction that spends at least one of the same inputs and pays a
          higher fee. Child-pays-for-parent is supported only for transactions submitted individually, not in a package.
        </p>
        <p>
          3.5 We never hold your bitcoin, your private keys or your seed phrases, and we will never ask for them. You sign
          transactions yourself and remain solely responsible for their contents.
        </p>
        <p>
          3.6 The Service may be unavailable from time to time, for example during maintenance, and we may change, suspend
          or end any part of it without notice.
        </p>
      </section>

      <section>
        <h3>4. Fees</h3>
        <p>
          4.1 Fees for the Service are set by our fee schedule in effect when you submit a transaction. The fee schedule
          may include a minimum fee threshold and discounts agreed with named clients. We may change the fee schedule at any time; changes apply to transactions submitted afterwards.
        </p>
        <p>
          4.2 Fees are paid in the transaction itself and are collected only if and when the transaction is mined. Once a
          transaction is mined, its fee cannot be refunded, reversed or credited, whatever the reason.
        </p>
        <p>
          4.3 You are responsible for checking that the fee your transaction pays is the fee you intend to pay, and for any
          taxes that apply to your transactions.
        </p>
      </section>

      <section>
        <h3>5. Risk disclosures</h3>
        <p>5.1 Using Bitcoin and the Service involves significant risks. By using the Service you accept, among others, that:</p>
        <ol type="a">
          <li>Bitcoin transactions are irreversible once mined; a mistake in an address, amount or fee cannot be undone.</li>
          <li>The value of bitcoin is volatile and may fall sharply, including while your transaction waits to be mined.</li>
          <li>
            Mining is probabilistic. Our pool may not find a block for a long time, and blocks may be reorganised out of
            the chain after they are found.
          </li>
          <li>
            A transaction that other nodes consider non-standard may not be relayed or mined by anyone but us, and
            conflicting transactions broadcast elsewhere may be mined first.
          </li>
          <li>
            Software, including ours, the Bitcoin node software and your wallet, can contain errors, and networks can fail
            or be attacked.
          </li>
          <li>
            Tokens, inscriptions and other protocols built on top of Bitcoin are not part of its consensus rules; we do not
            interpret, track or vouch for them, and their value may be lost entirely.
          </li>
          <li>Laws and regulations about digital assets change, and may restrict or end your ability to use the Service.</li>
        </ol>
        <p>
          5.2 Nothing on the Service is financial, investment, legal or tax advice, and we owe you no fiduciary duty. You
          should take independent advice before acting.
        </p>
      </section>

      <section>
        <h3>6. Privacy and personal data</h3>
        <p>
          6.1 We do not collect personal data to provide the Service: there is no account, and we do not ask for your name,
          email address, postal address or identity documents in order to submit a transaction.
        </p>
        <p>
          6.2 Like any website, our servers process the technical information needed to deliver and secure the Service,
          such as the network address a request comes from and the request itself, and keep it in security and audit logs.
          We do not sell it or use it for advertising.
        </p>
        <p>
          6.3 Transactions you submit become public on the Bitcoin blockchain once mined. Do not include in a transaction
          anything you wish to keep private.
        </p>
      </section>

      <section>
        <h3>7. Acceptable use</h3>
        <p>7.1 You agree not to use the Service to submit, store or publish:</p>
        <ol type="a">
          <li>material that infringes copyright or other intellectual property rights without the rights holder&apos;s authorisation;</li>
          <li>
            objectionable material, including material that is unlawful, sexually exploits minors, promotes violence or
            terrorism, harasses or defames anyone, or contains malicious code;
          </li>
          <li>transactions that form part of fraud, money laundering, terrorist financing or any other unlawful activity.</li>
        </ol>
        <p>
          7.2 You also agree not to disrupt, overload or probe the Service, to get around its limits, or to access it other
          than through the interfaces we provide.
        </p>
        <p>
          7.3 We may refuse, drop or decline to mine any transaction, and suspend anyone&apos;s use of the Service, if we
          believe in good faith that these Terms or the law have been broken.
        </p>
      </section>

      <section>
        <h3>8. Sanctions and compliance</h3>
        <p>8.1 You represent and warrant, each time you use the Service, that:</p>
        <ol type="a">
          <li>
            you are not a person or entity named on, or owned or controlled by anyone named on, a sanctions list maintained
            by the United States (including the Office of Foreign Assets Control), the United Nations, the European Union,
            the United Kingdom or any other relevant authority;
          </li>
          <li>
            you are not located in, organised in or ordinarily resident in a country or territory subject to comprehensive
            sanctions or embargoes;
          </li>
          <li>
            you are not acting for or on behalf of any such person, and no transaction you submit sends funds to, or
            receives funds from, any such person or any address identified by a sanctions authority;
          </li>
          <li>your use of the Service complies with all export-control, anti-money-laundering and sanctions laws that apply to you.</li>
        </ol>
        <p>
          8.2 If any of these statements stops being true, you must stop using the Service at once. We may screen
          transactions and refuse or drop any that we believe would breach sanctions laws.
        </p>
      </section>

      <section>
        <h3>9. Special requests</h3>
        <p>
          9.1 Custom blocks, reserved block space, non-public pricing and any other request beyond the standard Service are
          accepted only by contacting us at {contact}. No other channel, including social media, chat groups or third
          parties claiming to act for us, can accept a special request on our behalf.
        </p>
        <p>
          9.2 A special request binds us only once we have confirmed it in writing, and may be subject to separate terms
          and fees.
        </p>
      </section>

      <section>
        <h3>10. Intellectual property</h3>
        <p>
          10.1 The Service, including its software, design, text and the Slipstream name and logo, belongs to us or our
          licensors. These Terms give you a limited, revocable, non-exclusive right to use the Service as they describe,
          and nothing more.
        </p>
        <p>
          10.2 You give us the right to process, store and relay to our mining infrastructure the transactions you submit,
          as needed to provide the Service.
        </p>
      </section>

      <section>
        <h3>11. Disclaimer of warranties</h3>
        <p>
          11.1 The Service is provided &ldquo;as is&rdquo; and &ldquo;as available&rdquo;. To the fullest extent the law
          allows, we disclaim all warranties, express or implied, including warranties of merchantability, fitness for a
          particular purpose, title, non-infringement, availability and accuracy, and any warranty that a transaction will
          be accepted, mined or mined by a particular time.
        </p>
      </section>

      <section>
        <h3>12. Limitation of liability</h3>
        <p>
          12.1 To the fullest extent the law allows, we are not liable for any indirect, incidental, special, consequential,
          exemplary or punitive damages, or for any loss of profits, revenue, data, goodwill or digital assets, arising out
          of or related to the Service or these Terms, even if we were told such damages were possible.
        </p>
        <p>
          12.2 Our total liability for all claims arising out of or related to the Service or these Terms, whatever their
          legal basis, is limited to {LIABILITY_CAP}.
        </p>
        <p>12.3 Some jurisdictions do not allow certain limitations; in those, our liability is limited as far as the law permits.</p>
      </section>

      <section>
        <h3>13. Indemnity</h3>
        <p>
          13.1 You will defend, indemnify and hold harmless us, our affiliates and our and their officers, employees and
          agents from any claim, loss, liability or expense (including reasonable legal fees) arising from your use of the
          Service, the transactions you submit or your breach of these Terms or of the law.
        </p>
      </section>

      <section>
        <h3>14. Disputes and arbitration</h3>
        <p>
          14.1 <strong>Notice and negotiation.</strong> Before starting any proceeding, the party with a dispute must send
          the other a written notice describing it and the relief sought; notices to us go to {contact}. The parties will
          then try in good faith to resolve the dispute as follows:
        </p>
        <ol type="a">
          <li>within {firstStep} days of the notice, the parties will exchange the information relevant to the dispute and try to settle it informally;</li>
          <li>
            if it is not settled within {secondStep} days of the notice, each party will refer it to a person with
            authority to settle it, and those persons will meet, in person or remotely, to try to resolve it;
          </li>
          <li>if it is still not settled within {thirdStep} days of the notice, either party may start arbitration under section 14.2.</li>
        </ol>
        <p>
          14.2 <strong>Binding arbitration.</strong> Any dispute, claim or controversy arising out of or relating to the
          Service or these Terms, including their formation, scope or validity, will be resolved by final and binding
          arbitration before a single arbitrator, not in court, except that either party may bring an individual claim in
          a small-claims court or seek urgent injunctive relief to protect intellectual property.
        </p>
        <p>
          14.3 <strong>Governing law.</strong> These Terms and any arbitration under them are governed by the laws of{' '}
          {GOVERNING_LAW}, without regard to its conflict-of-law rules. The arbitrator will apply those laws and may award
          any relief available in court, subject to sections 12 and 14.4. Judgment on the award may be entered in any court
          with jurisdiction.
        </p>
        <p>
          14.4 <strong>Individual claims only.</strong> Disputes will be resolved only on an individual basis. You and we
          each waive any right to bring or take part in a class, collective, consolidated or representative action or
          arbitration, and to a trial by jury.
        </p>
        <p>
          14.5 <strong>Time limit.</strong> Any claim arising out of or relating to the Service or these Terms must be
          brought within {CLAIM_LIMIT} after it arose. A claim not brought within that time is permanently barred.
        </p>
      </section>

      <section>
        <h3>15. Suspension and termination</h3>
        <p>
          15.1 We may suspend or end your access to the Service at any time, with or without notice, including if we
          believe you have broken these Terms. Sections 4.2, 5, 8, 11, 12, 13, 14 and 16 continue to apply after your use
          ends.
        </p>
      </section>

      <section>
        <h3>16. General</h3>
        <p>
          16.1 These Terms, with the fee schedule and any written confirmation of a special request, are the entire
          agreement between you and us about the Service.
        </p>
        <p>
          16.2 If any part of these Terms is found unenforceable, the rest stays in effect and that part is enforced as far
          as possible. Our failure to enforce a right is not a waiver of it.
        </p>
        <p>
          16.3 You may not transfer your rights or obligations under these Terms without our written consent. We may
          transfer ours, for example as part of a reorganisation or sale of our business.
        </p>
        <p>16.4 Questions about these Terms can be sent to {contact}.</p>
      </section>
    </article>
  );
}
