"""Files -> model: the tool schemas (`tools`), the cases (`cases`) and the project's settings
(`settings`), read into the data model with every location recorded. (Traces, a stream, have a
package of their own: `evalrunner.traces`.)"""
