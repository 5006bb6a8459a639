// What "Run All" does at a cell tagged raises-exception, in a real browser.
//
//   node tools/run_all_check.js http://127.0.0.1:8888 TOKEN lab        # JupyterLab
//   node tools/run_all_check.js http://127.0.0.1:8888 TOKEN notebooks  # Notebook 7
//
// Needs a running Jupyter server with a "python3" kernel, Chromium at
// $CHROMIUM (default /usr/bin/chromium) and playwright-core (npm). It writes
// run_all_check.ipynb at the server's root through the contents API: five cells,
// (1) print, (2) an error in a cell tagged raises-exception, (3) print,
// (4) an error in an untagged cell, (5) print; opens it, chooses Run > Run All
// Cells, and prints which cells ran. TEACHING.md quotes the result.
const { chromium } = require('playwright-core');

const [base, token, ui] = process.argv.slice(2);
const cell = (source, tags = []) => ({ cell_type: 'code', source, metadata: { tags }, outputs: [], execution_count: null });
const notebook = {
  nbformat: 4, nbformat_minor: 5,
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
  cells: [cell('print("one")'), cell('raise ValueError("tagged, on purpose")', ['raises-exception']),
          cell('print("three")'), cell('raise ValueError("untagged")'), cell('print("five")')],
};

(async () => {
  const put = await fetch(`${base}/api/contents/run_all_check.ipynb`, {
    method: 'PUT', headers: { Authorization: `token ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ type: 'notebook', format: 'json', content: notebook }),
  });
  if (!put.ok) throw new Error(`could not write the notebook: HTTP ${put.status}`);
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
  const page = await browser.newPage();
  const path = ui === 'lab' ? 'lab/tree' : 'notebooks';
  await page.goto(`${base}/${path}/run_all_check.ipynb?token=${token}`);
  await page.waitForSelector('.jp-Cell', { timeout: 60000 });
  await page.waitForTimeout(5000);  // the kernel starts
  await page.getByRole('menuitem', { name: 'Run', exact: true }).click();
  await page.getByText('Run All Cells', { exact: true }).click();
  await page.waitForTimeout(10000);
  const ran = await page.$$eval('.jp-Notebook .jp-Cell', cells => cells.map(c => {
    const prompt = c.querySelector('.jp-InputPrompt');
    return prompt ? /\[\d+\]/.test(prompt.innerText) : false;
  }));
  await browser.close();
  console.log(`cells run: ${ran.map((r, i) => `${i + 1}:${r ? 'yes' : 'no'}`).join(' ')}`);
  console.log(ran[2] ? 'continues past a raises-exception cell' : 'stops at a raises-exception cell');
  console.log(ran[4] ? 'continues past an untagged error' : 'stops at an untagged error');
})().catch(error => { console.error(error.message); process.exit(1); });
