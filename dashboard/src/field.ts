/**
 * The inspection form and the inspections waiting on this phone, bundled apart (`/field.js`): the page
 * loads it when the form is first shown, or when inspections wait to be sent. What it shares with the
 * page (the API's session, the sites, the DOM helpers) it imports from the page's own module, `/app.js`
 * (gateway/src/api/dashboardBundle.ts), so there is one of each.
 */
import { bindInspectionForm } from './pages/field/inspect.js';

export {
  initInspectionForm,
  outboxChance,
  presetInspectionSite,
  startOutbox,
} from './pages/field/inspect.js';

bindInspectionForm();
