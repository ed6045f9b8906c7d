import { render } from 'preact';
import { App } from './app';
import './styles.css';
import './fleet.css';

render(<App />, document.getElementById('root')!);
